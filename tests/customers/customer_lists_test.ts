import assert from "node:assert/strict";
import { CustomerLists } from "../../src/customers/customer_lists.ts";
import { parseListQuery } from "../../src/customers/list_query.ts";
import { CustomerService } from "../../src/customers/customer_service.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { MemoryEventStore } from "../../src/store/memory/memory_event_store.ts";
import { RecordedSpans } from "../support/recorded_spans.ts";

Deno.test("a search is a span search.page saying how the indexes answered it; a wait for them another", async () => {
  const recorded = new RecordedSpans();
  const projection = new CustomerProjection();
  const service = new CustomerService({
    store: new MemoryEventStore(),
    projection,
    clock: Date.now,
    newId: (() => {
      let n = 0;
      return () => `01JDQ8Z5K3${String(++n).padStart(16, "0")}`;
    })(),
    span: recorded.start,
  });
  await service.snapshots.replay();
  const write = { actor: "alice", requestId: "r" };
  for (const name of ["Ada Lovelace", "Grace Hopper", "Alan Turing"]) {
    await service.create({ name, email: `${name.split(" ")[0]}@example.com` }, write);
  }
  const lists = service.lists as CustomerLists;
  const { page } = await lists.page(parseListQuery("?q=grace&sort=name"));
  assert.equal(page.texts.length, 1);
  assert.equal(recorded.named("search.index_wait").length, 1, "the first search built the indexes");
  await lists.page(parseListQuery("?sort=-name&limit=2"));
  assert.equal(recorded.named("search.index_wait").length, 1, "built once");
  assert.deepEqual(recorded.named("search.page").map((span) => span.attributes), [
    {
      "search.sort": "name",
      "search.filtered": true,
      "search.limit": 100,
      "search.candidates": 1,
      "search.plan": "candidates",
      "search.results": 1,
    },
    {
      "search.sort": "-name",
      "search.filtered": false,
      "search.limit": 2,
      "search.plan": "walk",
      "search.results": 2,
    },
  ]);
  assert.ok(recorded.spans.every((span) => span.ended && span.failed === undefined));
  assert.ok(!JSON.stringify(recorded.spans).includes("grace"), "no query value in a span");
});
