import assert from "node:assert/strict";
import { compareRatios, type GuardedRatio, parseBaseline } from "../../bench/regression_check.ts";

const higher = (name: string, value: number): GuardedRatio => ({ name, value, better: "higher" });
const lower = (name: string, value: number): GuardedRatio => ({ name, value, better: "lower" });

Deno.test("compareRatios fails a higher-is-better ratio only when it falls by more than 25 %", () => {
  const baseline = [higher("get", 0.8)];
  assert.deepEqual(compareRatios([higher("get", 0.61)], baseline), []); // 23.75 % lower
  assert.deepEqual(compareRatios([higher("get", 0.6)], baseline), []); // exactly 25 %
  assert.deepEqual(compareRatios([higher("get", 2)], baseline), []); // better
  const [failure] = compareRatios([higher("get", 0.59)], baseline);
  assert.equal(failure.name, "get");
  assert.equal(failure.current, 0.59);
  assert.ok(Math.abs(failure.worse! - 0.2625) < 1e-9);
  assert.match(
    failure.message,
    /^get: 0\.590 against the baseline's 0\.800 .* 26 % worse; allowed ≥ 0\.600/,
  );
});

Deno.test("compareRatios judges a lower-is-better ratio by its inverse", () => {
  // Startup at 2 × JSON.parse: a 25 % fall in speed is 2 ÷ 0.75 = 2.67 ×.
  const baseline = [lower("startup", 2)];
  assert.deepEqual(compareRatios([lower("startup", 2.6)], baseline), []);
  assert.deepEqual(compareRatios([lower("startup", 1)], baseline), []);
  const failures = compareRatios([lower("startup", 2.7)], baseline);
  assert.equal(failures.length, 1);
  assert.match(failures[0].message, /allowed ≤ 2\.667/);
});

Deno.test("compareRatios reports every failing ratio, and ratios the run did not measure", () => {
  const baseline = [higher("a", 1), higher("b", 1), lower("c", 1), higher("d", 1)];
  const current = [
    higher("a", 0.5),
    higher("b", 0.9),
    lower("c", 10),
    higher("d", NaN),
    higher("e", 0),
  ];
  const failures = compareRatios(current, baseline);
  assert.deepEqual(failures.map((f) => f.name), ["a", "c", "d"]);
  assert.deepEqual(compareRatios([], [higher("x", 3)]).map((f) => f.message), [
    "x: not measured in this run (baseline 3.000)",
  ]);
});

Deno.test("compareRatios takes another tolerance", () => {
  assert.equal(compareRatios([higher("a", 0.85)], [higher("a", 1)], 0.1).length, 1);
  assert.equal(compareRatios([higher("a", 0.95)], [higher("a", 1)], 0.1).length, 0);
});

Deno.test("parseBaseline refuses a file that is not a baseline", () => {
  const good = {
    measured: { at: "2026-11-23T23:00:00Z", commit: "abc" },
    settings: { httpRounds: 3, httpSeconds: 2, startupEvents: 1000, startupRuns: 1 },
    ratios: [higher("a", 1)],
  };
  assert.deepEqual(parseBaseline(JSON.stringify(good), "b.json"), good);
  const bad = { ...good, ratios: [{ name: "a", value: 1, better: "up" }] };
  assert.throws(() => parseBaseline(JSON.stringify(bad), "b.json"), /"b.json" is not a baseline/);
  assert.throws(() => parseBaseline("[]", "b.json"), /not a baseline/);
});
