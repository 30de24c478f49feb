/** The invariants the PostgreSQL store enforces itself, inside the append transaction. */
import assert from "node:assert/strict";
import type { NewEvent } from "../../../src/store/event_store.ts";
import { EmailInUseError, IdempotencyKeyTakenError } from "../../../src/store/store_errors.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { created, deleted } from "../../support/events.ts";

/** created(n) with another email. */
function createdWith(n: number, email: string): NewEvent {
  const event = created(n);
  return { ...event, data: { ...event.data!, email } } as NewEvent;
}

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
