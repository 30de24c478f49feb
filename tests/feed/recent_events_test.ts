import assert from "node:assert/strict";
import { RecentEvents } from "../../src/feed/recent_events.ts";
import type { NewEvent } from "../../src/store/event_store.ts";
import { MemoryEventStore } from "../../src/store/memory/memory_event_store.ts";

const TIME = "2026-01-02T03:04:05.678Z";

function created(id: string): NewEvent {
  const data = {
    id,
    name: "Ada",
    email: `${id}@example.com`,
    phone: null,
    address: null,
    metadata: {},
    created_at: TIME,
    updated_at: TIME,
    version: 1,
  };
  return {
    type: "customer.created",
    id,
    version: 1,
    time: TIME,
    data,
    actor: "t",
    request_id: "r",
  };
}

/** A real memory store that counts how often the log itself is read. */
async function countingStore() {
  const store = new MemoryEventStore();
  await store.replay(() => {});
  const reads = { count: 0 };
  const readFrom = store.readFrom.bind(store);
  store.readFrom = (after, limit) => {
    reads.count++;
    return readFrom(after, limit);
  };
  return { store, reads };
}

Deno.test("readers at the head are answered from memory; every answer equals the store's", async () => {
  const { store, reads } = await countingStore();
  await store.append(["a", "b", "c"].map(created));
  const recent = new RecentEvents(store);
  const first = await recent.readFrom(0, 10);
  const before = reads.count;
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(await recent.readFrom(1, 10), first.slice(1));
  }
  assert.equal(reads.count - before, 0, "nothing is durable past the cached range: no read");
  await store.append([created("d")]);
  assert.deepEqual(
    (await recent.readFrom(3, 10)).map((e) => e.id),
    ["d"],
  );
  assert.deepEqual(await recent.readFrom(0, 2), await store.readFrom(0, 2));
});

Deno.test("after clear() the cache answers what the log holds now, not what it held", async () => {
  const { store, reads } = await countingStore();
  await store.append([created("a"), created("b")]);
  const recent = new RecentEvents(store);
  await recent.readFrom(0, 10);
  recent.clear();
  const before = reads.count;
  assert.deepEqual(await recent.readFrom(0, 10), await store.readFrom(0, 10));
  assert.equal(reads.count - before, 2, "read from the log again");
});

Deno.test("the cache keeps at most its capacity, and older reads go to the store", async () => {
  const { store } = await countingStore();
  await store.append(Array.from({ length: 10 }, (_, i) => created(`c${i}`)));
  const recent = new RecentEvents(store, 4);
  await recent.readFrom(0, 10);
  assert.deepEqual(await recent.readFrom(0, 10), await store.readFrom(0, 10));
  assert.deepEqual(await recent.readFrom(7, 10), await store.readFrom(7, 10));
});

Deno.test("readers waiting at the head for the same new events share one read of the log", async () => {
  const { store, reads } = await countingStore();
  await store.append([created("a")]);
  const recent = new RecentEvents(store);
  await recent.readFrom(0, 10);
  await store.append([created("b"), created("c")]);
  const before = reads.count;
  // Ten endpoints' loops (or streams) ask at once for what follows seq 1.
  const answers = await Promise.all(Array.from({ length: 10 }, () => recent.readFrom(1, 1)));
  assert.equal(reads.count - before, 1);
  for (const answer of answers) assert.deepEqual(answer.map((e) => e.id), ["b"]);
  assert.deepEqual((await recent.readFrom(1, 10)).map((e) => e.id), ["b", "c"]);
  assert.equal(reads.count - before, 1, "the shared read brought both");
});

Deno.test("a read under way when clear() runs does not bring forgotten events back", async () => {
  const { store } = await countingStore();
  await store.append([created("a")]);
  const recent = new RecentEvents(store);
  await recent.readFrom(0, 10);
  await store.append([created("b")]);
  const reading = recent.readFrom(1, 10);
  recent.clear();
  await reading;
  // After clear() the cache starts again from what the store answers now.
  assert.deepEqual(await recent.readFrom(0, 10), await store.readFrom(0, 10));
});

Deno.test("committed events handed to add() are served without reading the log, only in seq order", async () => {
  const { store, reads } = await countingStore();
  await store.append(["a", "b"].map(created));
  const recent = new RecentEvents(store);
  // Before any read the cache covers nothing: an added event cannot join it.
  const [early] = await store.append([created("c")]);
  recent.add({ ...(await store.readFrom(2, 1))[0] });
  assert.deepEqual((await recent.readFrom(0, 10)).map((e) => e.seq), [1, 2, early.seq]);
  const before = reads.count;
  const [d] = await store.append([created("d")]);
  const fromLog = await store.readFrom(d.seq - 1, 1);
  reads.count = before;
  recent.add(fromLog[0]);
  assert.deepEqual(await recent.readFrom(3, 10), fromLog);
  assert.equal(reads.count, before, "the added event came from memory");
  // An event that skips a seq is not taken: the cache still reads what it lacks from the log.
  const [e, f] = await store.append(["e", "f"].map(created));
  reads.count = before;
  recent.add((await store.readFrom(f.seq - 1, 1))[0]);
  reads.count = before;
  assert.deepEqual((await recent.readFrom(d.seq, 10)).map((event) => event.seq), [e.seq, f.seq]);
  assert.equal(reads.count - before, 1, "the missing event was read from the log");
});
