import assert from "node:assert/strict";
import { BackgroundHealth } from "../../src/ops/background_health.ts";
import { parseSamples, sample } from "../support/metrics_text.ts";

function recorder() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  return {
    lines,
    warn: (msg: string, fields?: Record<string, unknown>) =>
      lines.push({ level: "warn", msg, fields }),
    info: (msg: string, fields?: Record<string, unknown>) =>
      lines.push({ level: "info", msg, fields }),
  };
}

Deno.test("a task failing again and again warns once, counts every failure, and its recovery is logged once", () => {
  const log = recorder();
  const health = new BackgroundHealth(log, () => true);
  for (let i = 0; i < 3; i++) health.failed("feed_index", new Error("Connection terminated"));
  health.failed("log_follower", new Error("ECONNREFUSED"));
  assert.deepEqual(log.lines.map((line) => [line.level, line.fields?.task]), [
    ["warn", "feed_index"],
    ["warn", "log_follower"],
  ]);
  health.succeeded("feed_index");
  health.succeeded("feed_index");
  assert.deepEqual(log.lines.slice(2).map((line) => [line.level, line.fields?.task]), [
    ["info", "feed_index"],
  ]);
  health.failed("feed_index", new Error("again"));
  assert.equal(log.lines.at(-1)?.level, "warn", "a new run of failures warns again");
  const samples = parseSamples(health.render().join("\n"));
  assert.equal(sample(samples, 'background_failures_total{task="feed_index"}'), 4);
  assert.equal(sample(samples, 'background_failures_total{task="log_follower"}'), 1);
});

Deno.test("database_reachable follows the store, and is not exposed without a database", () => {
  let reachable = true;
  const health = new BackgroundHealth(recorder(), () => reachable);
  assert.equal(sample(parseSamples(health.render().join("\n")), "database_reachable"), 1);
  reachable = false;
  assert.equal(sample(parseSamples(health.render().join("\n")), "database_reachable"), 0);
  const jsonl = parseSamples(new BackgroundHealth(recorder()).render().join("\n"));
  assert.equal(jsonl.has("database_reachable"), false);
});
