import assert from "node:assert/strict";
import { FeedIndex } from "../../src/feed/feed_index.ts";
import { MemoryEventStore } from "../../src/store/memory/memory_event_store.ts";

const TIME = "2026-01-02T03:04:05.678Z";

Deno.test("each customer's seqs are kept whatever the order its id comes in", async () => {
  const index = new FeedIndex(new MemoryEventStore());
  await index.ready;
  // Ids above every earlier one (new customers), below (older ones), and repeats of either.
  const ids = ["01B", "01C", "01A", "01C", "01D", "01A", "01B", "01E", "01D", "00Z"];
  const expected = new Map<string, number[]>();
  for (const [i, id] of ids.entries()) {
    const seq = i + 1;
    const type = expected.has(id) ? "customer.updated" : "customer.created";
    index.add({ seq, id, time: TIME, type });
    expected.set(id, [...expected.get(id) ?? [], seq]);
    for (const [known, seqs] of expected) assert.deepEqual(index.seqsOf(known), seqs, known);
  }
  assert.deepEqual(index.seqsOf("01F"), []);
  assert.equal(index.indexedSeq, ids.length);
});
