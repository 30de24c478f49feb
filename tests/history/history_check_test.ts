/**
 * The history check, short: concurrent clients collide on a few customers while servers are
 * killed with kill -9 and replicas lose their database; every answer must agree with the feed and
 * the final state (tests/support/history_checker.ts). `deno task check-history` runs it for longer.
 */
import assert from "node:assert/strict";
import { historyOnJsonl, historyOnReplicas, type RunResult } from "../support/history_run.ts";

function assertClean(result: RunResult) {
  const summary = JSON.stringify({ counts: result.counts, faults: result.faults });
  assert.deepEqual(result.anomalies, [], summary);
  // A run that acknowledged little, or never raced an If-Match, proves little.
  assert.ok(result.counts.acknowledged > 200, summary);
  assert.ok(result.counts.ifMatch > 50, summary);
  assert.ok(result.counts.refused > 0, summary);
}

Deno.test("history on one JSONL server, killed with kill -9 and restarted: every answer is what the log holds", async () => {
  assertClean(await historyOnJsonl({ seconds: 10, faultEveryMs: 5000 }));
});

Deno.test("history on three replicas, one killed and one cut from the database: every answer is what the log holds", async () => {
  assertClean(await historyOnReplicas({ seconds: 20, faultEveryMs: 5000 }));
});
