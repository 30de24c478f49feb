import assert from "node:assert/strict";
import { replicaGate } from "../../src/http/replica_gate.ts";
import { RecordedSpans } from "../support/recorded_spans.ts";

const app = () => new Response("ok");

Deno.test("a wait for Min-Log-Seq is a span of the request's: what was wanted, applied, and whether it caught up", async () => {
  const replica = { appliedSeq: 5, reachable: true };
  const recorded = new RecordedSpans();
  const gate = replicaGate(app, replica, 200, undefined, recorded.start);
  const request = (seq: number) =>
    new Request("http://x/api/customers", { headers: { "min-log-seq": String(seq) } });

  assert.equal((await gate(request(5))).status, 200);
  assert.equal(recorded.spans.length, 0, "no wait, no span");
  const waiting = gate(request(7));
  setTimeout(() => replica.appliedSeq = 7, 20);
  assert.equal((await waiting).status, 200);
  assert.equal((await gate(request(9))).status, 503);
  assert.deepEqual(recorded.named("replica.min_log_seq_wait").map((span) => span.attributes), [
    { "log_seq.wanted": 7, "log_seq.applied": 5, "replica.caught_up": true },
    { "log_seq.wanted": 9, "log_seq.applied": 7, "replica.caught_up": false },
  ]);
  assert.ok(recorded.spans.every((span) => span.ended));
});
