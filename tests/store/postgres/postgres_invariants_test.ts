/** The invariants the PostgreSQL store enforces itself, inside the append transaction. */
import assert from "node:assert/strict";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
} from "../../../src/store/store_errors.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { created, createdWith, deleted, updated } from "../../support/events.ts";

async function withStore(fn: (store: PostgresEventStore) => Promise<void>): Promise<void> {
  const schema = await createTestSchema();
  const store = await PostgresEventStore.open(schema.url);
  try {
    await store.replay(() => {});
    await fn(store);
  } finally {
    await store.close();
    await schema.drop();
  }
}

Deno.test("a second live customer with an email in another case is refused and nothing is written", () =>
  withStore(async (store) => {
    await store.append([createdWith(1, "Ada@Example.com")]);
    await assert.rejects(store.append([createdWith(2, "ada@example.COM")]), EmailInUseError);
    assert.equal(store.lastSeq, 1);
    assert.deepEqual((await store.readFrom(0, 10)).map((e) => e.id), [created(1).id]);
  }));

Deno.test("an email freed by a delete is taken by a create in the same group commit, and the others of the group stand", () =>
  withStore(async (store) => {
    await store.append([createdWith(1, "shared@example.com")]);
    for (let round = 0; round < 5; round++) {
      const owner = 10 * round + 1;
      if (round > 0) await store.append([createdWith(owner, "shared@example.com")]);
      // Queued in one turn: one group, whatever the order of the rows in the write.
      const results = await Promise.allSettled([
        store.append([deleted(round === 0 ? 1 : owner, 2)]),
        store.append([createdWith(owner + 1, "shared@example.com")]),
        store.append([createdWith(owner + 2, `other${round}@example.com`)]),
      ]);
      assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"]);
      await store.append([deleted(owner + 1, 2)]);
    }
  }));

Deno.test("an idempotency key is taken once per actor: the same key of another actor is free", () =>
  withStore(async (store) => {
    const keyed = (n: number, actor: string) => ({ ...created(n), actor, idempotency_key: "k1" });
    await store.append([keyed(1, "alice")]);
    await assert.rejects(store.append([keyed(2, "alice")]), IdempotencyKeyTakenError);
    await store.append([keyed(3, "bob")]);
    assert.equal(store.lastSeq, 2);
  }));

Deno.test("a refusal only the database sees (one email twice in one batch) refuses that batch alone", () =>
  withStore(async (store) => {
    const results = await Promise.allSettled([
      store.append([created(3)]),
      store.append([createdWith(1, "twice@example.com"), createdWith(2, "twice@example.com")]),
      store.append([created(4)]),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.ok((results[1] as PromiseRejectedResult).reason instanceof EmailInUseError);
    assert.deepEqual((await store.readFrom(0, 10)).map((e) => [e.seq, e.id]), [
      [1, created(3).id],
      [2, created(4).id],
    ]);
  }));

Deno.test("one group commit refuses each bad append with its own error and writes the rest with consecutive seqs in call order", () =>
  withStore(async (store) => {
    const keyed = (n: number, key: string) => ({ ...created(n), idempotency_key: key });
    await store.append([keyed(1, "k1")]);
    await store.append([createdWith(2, "taken@example.com")]);
    // Queued in one turn: the first starts a commit alone, the others wait and form one group.
    const [, ...results] = await Promise.allSettled([
      store.append([created(9)]),
      store.append([updated(1, 3)], { expected: { [created(1).id]: 2 } }),
      store.append([created(10)]),
      store.append([keyed(11, "k1")]),
      store.append([createdWith(12, "TAKEN@example.com")]),
      store.append([updated(1, 2)], { expected: { [created(1).id]: 1 } }),
      store.append([keyed(13, "k2")]),
      store.append([keyed(14, "k2")]),
      store.append([updated(1, 3)], { expected: { [created(1).id]: 2 } }),
    ]);
    const reason = (i: number) => (results[i] as PromiseRejectedResult).reason;
    assert.deepEqual(results.map((r) => r.status), [
      "rejected",
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    assert.ok(reason(0) instanceof ExpectedVersionConflictError);
    assert.deepEqual([reason(0).id, reason(0).expected, reason(0).actual], [created(1).id, 2, 1]);
    assert.ok(reason(2) instanceof IdempotencyKeyTakenError);
    assert.ok(reason(3) instanceof EmailInUseError);
    assert.equal(reason(3).email, "TAKEN@example.com");
    // The key k2 was taken by an append earlier in the same group.
    assert.ok(reason(6) instanceof IdempotencyKeyTakenError);
    const seqs = [1, 4, 5, 7].map((i) =>
      (results[i] as PromiseFulfilledResult<{ seq: number }[]>).value[0].seq
    );
    assert.deepEqual(seqs, [4, 5, 6, 7]);
    assert.deepEqual((await store.readFrom(2, 10)).map((e) => [e.seq, e.id, e.version]), [
      [3, created(9).id, 1],
      [4, created(10).id, 1],
      [5, created(1).id, 2],
      [6, created(13).id, 1],
      [7, created(1).id, 3],
    ]);
    assert.equal(store.lastSeq, 7);
  }));
