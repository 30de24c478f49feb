/**
 * A replica follows another's group commits from their notifications: it serves the events they
 * carry without reading the database, exactly as the database holds them, and never an event a
 * later erasure removed.
 */
import assert from "node:assert/strict";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { NotifiedTail } from "../../../src/store/postgres/notified_tail.ts";
import { connectClient, createPool } from "../../../src/store/postgres/pg_connection.ts";
import { eraseDeleted } from "../../../src/store/postgres/pg_retention.ts";
import type { NewEvent, ReplayedEvent } from "../../../src/store/event_store.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { eventually } from "../../support/outage_round.ts";
import { created, deleted, ulid, updated } from "../../support/events.ts";

async function caughtUp(store: PostgresEventStore, seq: number): Promise<void> {
  while (store.lastSeq < seq) await store.waitForCommit(store.lastSeq);
}

/** Waits until the writer has heard another replica's hello: its notices then carry events. */
function heard(writer: PostgresEventStore): Promise<void> {
  return eventually(() => Promise.resolve(writer.othersListening), "the writer hears the follower");
}

Deno.test("a replica serves another's group commits from their notifications, and its own, as the database holds them, without reading it", async () => {
  const schema = await createTestSchema();
  const writer = await PostgresEventStore.open(schema.url);
  const follower = await PostgresEventStore.open(schema.url);
  const locker = createPool(schema.url, 1, () => {});
  try {
    // Once the follower has seen a commit, it listens (it reads the head after it starts to).
    await writer.append([created(9)]);
    await caughtUp(follower, writer.lastSeq);
    await heard(writer);
    const before = writer.lastSeq;
    await Promise.all([
      writer.append([created(1)], { expected: { [ulid(1)]: 0 } }),
      writer.append([{ ...created(2), idempotency_key: "k-2", request_hash: "h-2" }]),
      writer.append([created(3), updated(3, 2)]),
    ]);
    await writer.append([deleted(1, 2)]);
    await caughtUp(follower, writer.lastSeq);
    const reader = await PostgresEventStore.open(schema.url);
    const fromDatabase = await reader.readFrom(before, 100);
    await reader.close();
    // With the events table locked, a read from the database would wait out its timeout.
    const client = await locker.connect();
    await client.query("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const notified = await Promise.race([
      Promise.all([follower.readFrom(before, 100), writer.readFrom(before, 100)]),
      new Promise<"waited">((resolve) => timer = setTimeout(() => resolve("waited"), 1000)),
    ]);
    clearTimeout(timer);
    await client.query("ROLLBACK");
    client.release();
    assert.notEqual(notified, "waited", "the read waited for the locked table");
    assert.deepEqual(notified, [fromDatabase, fromDatabase]);
    assert.equal(fromDatabase.length, 5);
  } finally {
    await writer.close();
    await follower.close();
    await locker.end();
    await schema.drop();
  }
});

Deno.test("a group too large for one notification reaches another replica in several, without its reading the database", async () => {
  const schema = await createTestSchema();
  const writer = await PostgresEventStore.open(schema.url);
  const follower = await PostgresEventStore.open(schema.url);
  const locker = createPool(schema.url, 1, () => {});
  try {
    await writer.append([created(9)]);
    await caughtUp(follower, writer.lastSeq);
    await heard(writer);
    const before = writer.lastSeq;
    // Sixty events of over 300 bytes each: far more than 8000 bytes, in one group.
    const large = Array.from({ length: 60 }, (_, i) => {
      const event = created(100 + i);
      return {
        ...event,
        data: { ...event.data!, metadata: { note: "ü".repeat(200) } },
      } as NewEvent;
    });
    await writer.append(large);
    assert.equal(writer.lastSeq, before + 60);
    await caughtUp(follower, writer.lastSeq);
    const client = await locker.connect();
    await client.query("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const notified = await Promise.race([
      follower.readFrom(before, 100),
      new Promise<"waited">((resolve) => timer = setTimeout(() => resolve("waited"), 1000)),
    ]);
    clearTimeout(timer);
    await client.query("ROLLBACK");
    client.release();
    assert.notEqual(notified, "waited", "the follower read the locked table");
    assert.deepEqual(
      (notified as ReplayedEvent[]).map((e) => [e.seq, e.id, JSON.parse(e.dataJson!).metadata]),
      large.map((e, i) => [before + 1 + i, e.id, { note: "ü".repeat(200) }]),
    );
  } finally {
    await writer.close();
    await follower.close();
    await locker.end();
    await schema.drop();
  }
});

Deno.test("a replica serves no notified event of a customer erased since", async () => {
  const schema = await createTestSchema();
  const writer = await PostgresEventStore.open(schema.url);
  const follower = await PostgresEventStore.open(schema.url);
  try {
    await writer.append([created(9)]);
    await caughtUp(follower, writer.lastSeq);
    await heard(writer);
    const before = writer.lastSeq;
    await writer.append([created(1)]);
    await writer.append([updated(1, 2)]);
    await writer.append([created(2)]);
    await writer.append([deleted(1, 3)]);
    await caughtUp(follower, writer.lastSeq);
    assert.equal((await follower.readFrom(before, 100)).length, 4);
    await eraseDeleted(writer.pool, 0, writer.lastSeq);
    while (follower.erasedSeq < writer.lastSeq) follower.refreshHead(), await tick();
    const after: ReplayedEvent[] = await follower.readFrom(before, 100);
    // Erasure leaves the delete itself; the create and update before it are gone.
    assert.deepEqual(after.map((e) => [e.type, e.id]), [
      ["customer.created", ulid(2)],
      ["customer.deleted", ulid(1)],
    ]);
  } finally {
    await writer.close();
    await follower.close();
    await schema.drop();
  }
});

Deno.test("a lone replica's notices carry only the head; once another replica listens they carry the events, until it stops", async () => {
  const schema = await createTestSchema();
  const writer = await PostgresEventStore.open(schema.url);
  const watcher = await connectClient(schema.url);
  const payloads: string[] = [];
  watcher.on("notification", (message: { payload?: string }) => {
    // Hellos are the replicas' own; a commit's notice names its first seq or the head. The channel
    // is the database's: notices of other schemas (other runs on the same server) are not ours.
    const payload = message.payload ?? "";
    const ours = (() => {
      try {
        return JSON.parse(payload).schema === schema.name;
      } catch {
        return false;
      }
    })();
    if (ours && !payload.includes('"listening"')) payloads.push(payload);
  });
  try {
    await watcher.query("LISTEN customer_api_log");
    await writer.append([created(1)]);
    await eventually(() => Promise.resolve(payloads.length === 1), "the first notice");
    assert.deepEqual(JSON.parse(payloads[0]), { schema: schema.name, head: writer.lastSeq });
    assert.equal(writer.othersListening, false, "a bare LISTEN says no hello");

    const follower = await PostgresEventStore.open(schema.url);
    try {
      await heard(writer);
      await writer.append([created(2)]);
      await eventually(() => Promise.resolve(payloads.length === 2), "the second notice");
      const notice = JSON.parse(payloads[1]);
      assert.equal(notice.first, writer.lastSeq - 1);
      assert.deepEqual(notice.events.map((e: unknown[]) => e[1]), [ulid(2)]);
    } finally {
      await follower.close();
    }
    // Three seconds after the follower's last hello, the writer's notices carry the head again.
    await eventually(
      () => Promise.resolve(!writer.othersListening),
      "the follower forgotten",
      5000,
    );
    await writer.append([created(3)]);
    await eventually(() => Promise.resolve(payloads.length === 3), "the third notice");
    assert.deepEqual(JSON.parse(payloads[2]), { schema: schema.name, head: writer.lastSeq });
  } finally {
    await watcher.end();
    await writer.close();
    await schema.drop();
  }
});

function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 20));
}

Deno.test("the tail serves the newest seqs it holds, whole pages only, and a late group never takes a newer event's place", () => {
  const tail = new NotifiedTail();
  const notified = (n: number) =>
    ["customer.created", ulid(n), 1, "t", "a", `r${n}`, null, null, `{"n":${n}}`] as const;
  const group = (first: number, count: number) =>
    Array.from({ length: count }, (_, i) => [...notified(first + 1 + i)]);
  for (let first = 0; first < 20_000; first += 100) {
    tail.add(first, group(first, 100) as Parameters<NotifiedTail["add"]>[1]);
  }
  const page = tail.read(19_900, 100, 20_000, 0)!;
  assert.deepEqual(page.map((e) => e.seq), Array.from({ length: 100 }, (_, i) => 19_901 + i));
  assert.equal(page[0].dataJson, '{"n":19901}');
  assert.equal(tail.read(0, 100, 20_000, 0), undefined, "long gone: read from the database");
  assert.equal(tail.read(19_950, 100, 20_100, 0), undefined, "not all held yet");
  // A group older than the ring's span arrives late: the newer events keep their slots.
  tail.add(20_000 - 8192 * 2, group(20_000 - 8192 * 2, 100) as Parameters<NotifiedTail["add"]>[1]);
  assert.equal(tail.read(19_900, 100, 20_000, 0)?.length, 100);
});
