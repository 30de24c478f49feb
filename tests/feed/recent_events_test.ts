import assert from "node:assert/strict";
import { FeedIndex } from "../../src/feed/feed_index.ts";
import { RECENT_CAPACITY, RecentEvents } from "../../src/feed/recent_events.ts";
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

function deleted(id: string): NewEvent {
  return {
    type: "customer.deleted",
    id,
    version: 2,
    time: TIME,
    data: null,
    actor: "t",
    request_id: "r",
  };
}

/** Erases "a" from the store as a compaction does, moving the erasure horizon to `seq`. */
function eraseA(store: MemoryEventStore, seq: number): void {
  store.erase((event) => event.id !== "a" || event.type === "customer.deleted", seq);
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

Deno.test("events added one by one past the capacity keep every answer equal to the store's", async () => {
  const { store, reads } = await countingStore();
  await store.append([created("c0")]);
  const recent = new RecentEvents(store, 4);
  await recent.readFrom(0, 10);
  for (let i = 1; i < 20; i++) {
    const [event] = await store.append([created(`c${i}`)]);
    recent.add((await store.readFrom(event.seq - 1, 1))[0]);
  }
  const before = reads.count;
  assert.deepEqual((await recent.readFrom(16, 10)).map((e) => e.id), ["c16", "c17", "c18", "c19"]);
  assert.equal(reads.count - before, 0, "the newest capacity events come from memory");
  for (let after = 0; after < 20; after++) {
    assert.deepEqual(await recent.readFrom(after, 3), await store.readFrom(after, 3));
  }
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

/** The store holding a (1), b (2) and a's delete (3), with the feed index over it. */
async function deletedA() {
  const { store, reads } = await countingStore();
  await store.append([created("a"), created("b"), deleted("a")]);
  const index = new FeedIndex(store);
  await index.ready;
  const recent = new RecentEvents(store, RECENT_CAPACITY, (seq) => index.takeErased(seq));
  return { store, reads, index, recent };
}

Deno.test("once the erasure horizon passes a delete, the customer's cached events are gone from the cache and the index", async () => {
  const { store, reads, index, recent } = await deletedA();
  assert.deepEqual((await recent.readFrom(0, 10)).map((e) => e.seq), [1, 2, 3]);
  assert.deepEqual(index.seqsOf("a"), [1, 3]);
  // Not erased yet: the log still has them, and so does memory.
  assert.deepEqual((await recent.readFrom(0, 10)).map((e) => e.seq), [1, 2, 3]);
  eraseA(store, 3);
  const before = reads.count;
  assert.deepEqual(await recent.readFrom(0, 10), await store.readFrom(0, 10));
  assert.deepEqual((await recent.readFrom(0, 10)).map((e) => e.seq), [2, 3]);
  assert.equal(reads.count - before, 1, "answered from memory (the one read is the comparison)");
  assert.deepEqual(index.seqsOf("a"), [3], "only the delete is left in the index");
  assert.deepEqual(index.seqsOf("b"), [2]);
});

Deno.test("a horizon before the delete forgets nothing", async () => {
  const { store, recent, index } = await deletedA();
  await recent.readFrom(0, 10);
  eraseA(store, 2);
  assert.deepEqual((await recent.readFrom(0, 10)).map((e) => e.seq), [1, 2, 3]);
  assert.deepEqual(index.seqsOf("a"), [1, 3]);
});

Deno.test("a read under way when erased events are forgotten does not bring them back", async () => {
  const { store, recent } = await deletedA();
  // The read starts before the erasure (its answer holds a's create), and ends after it.
  const reading = recent.readFrom(0, 10);
  eraseA(store, 3);
  recent.forgetErased();
  assert.deepEqual((await reading).map((e) => e.seq), [1, 2, 3]);
  assert.deepEqual(await recent.readFrom(0, 10), await store.readFrom(0, 10));
  assert.deepEqual((await recent.readFrom(0, 10)).map((e) => e.seq), [2, 3]);
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
