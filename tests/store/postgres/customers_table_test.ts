/**
 * Each customer's version and live email in one row (schema migration 7), and the group commit that
 * writes a clean group at once and leaves its refusals to the unique constraints (migration 8).
 */
import assert from "node:assert/strict";
import type { NewEvent } from "../../../src/store/event_store.ts";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
} from "../../../src/store/store_errors.ts";
import { commitGroup } from "../../../src/store/postgres/append_group.ts";
import { CommitStats } from "../../../src/store/postgres/commit_stats.ts";
import type { QueuedAppend } from "../../../src/store/postgres/queued_append.ts";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { migrate } from "../../../src/store/postgres/schema.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { created, createdWith, deleted, ulid, updated } from "../../support/events.ts";

const expectNew = (n: number) => ({ expected: { [ulid(n)]: 0 } });

Deno.test("a schema of version 6 is migrated: each customer's version and live email move into one row, which still refuses", async () => {
  const schema = await createTestSchema();
  const pool = createPool(schema.url, 1, () => {});
  try {
    await migrate(pool, 6);
    const client = await pool.connect();
    const group = async (...appends: [NewEvent, number?][]) => {
      const items: QueuedAppend[] = appends.map(([event, expected]) => ({
        events: [event],
        options: expected === undefined ? undefined : { expected: { [event.id]: expected } },
      }));
      await commitGroup(client, items, new CommitStats());
      assert.deepEqual(items.map((item) => item.error), items.map(() => undefined));
    };
    await group([created(1), 0], [created(2)], [created(3), 0]);
    await group([updated(1, 2), 1], [deleted(3, 2), 1]);
    client.release();
    await migrate(pool);
    const rows = await schema.query(
      `SELECT customer_id, version, email FROM ${schema.name}.customers ORDER BY customer_id`,
    );
    assert.deepEqual(rows, [
      { customer_id: ulid(1), version: 2, email: updated(1, 2).data!.email },
      { customer_id: ulid(2), version: 1, email: created(2).data!.email },
      { customer_id: ulid(3), version: 2, email: null },
    ]);
    const tables = await schema.query(`SELECT table_name FROM information_schema.tables
      WHERE table_schema = '${schema.name}' AND table_name IN ('streams', 'customer_emails')`);
    assert.deepEqual(tables, []);

    const store = await PostgresEventStore.open(schema.url);
    try {
      await store.replay(() => {});
      const taken = created(2).data!.email.toUpperCase();
      await assert.rejects(store.append([createdWith(4, taken)], expectNew(4)), EmailInUseError);
      await assert.rejects(
        store.append([updated(1, 2)], { expected: { [ulid(1)]: 1 } }),
        ExpectedVersionConflictError,
      );
      await assert.rejects(store.append([created(3)], expectNew(3)), ExpectedVersionConflictError);
      // The deleted customer's email is free again.
      await store.append([createdWith(5, created(3).data!.email)], expectNew(5));
      await store.append([updated(1, 3)], { expected: { [ulid(1)]: 2 } });
      assert.equal(store.lastSeq, 7);
    } finally {
      await store.close();
    }
  } finally {
    await pool.end();
    await schema.drop();
  }
});

Deno.test("a group naming each customer once is refused append by append where a unique constraint objects, and the rest is written with consecutive seqs", async () => {
  const schema = await createTestSchema();
  const store = await PostgresEventStore.open(schema.url);
  try {
    await store.replay(() => {});
    const keyed = (n: number, key: string) => ({ ...created(n), idempotency_key: key });
    await store.append([keyed(1, "k1")], expectNew(1));
    await store.append([createdWith(2, "taken@example.com")], expectNew(2));
    await store.append([created(3)], expectNew(3));
    // Queued in one turn: the first starts a commit alone, the others wait and form one group.
    const [, ...results] = await Promise.allSettled([
      store.append([created(9)], expectNew(9)),
      store.append([created(10)], expectNew(10)),
      store.append([createdWith(11, "Taken@Example.com")], expectNew(11)),
      store.append([keyed(12, "k1")], expectNew(12)),
      store.append([created(2)], expectNew(2)),
      store.append([updated(3, 2)], { expected: { [ulid(3)]: 1 } }),
      store.append([createdWith(13, "twice@example.com")], expectNew(13)),
      store.append([createdWith(14, "TWICE@example.com")], expectNew(14)),
      store.append([keyed(15, "k2")], expectNew(15)),
    ]);
    const reason = (i: number) => (results[i] as PromiseRejectedResult).reason;
    assert.deepEqual(results.map((r) => r.status), [
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    assert.ok(reason(1) instanceof EmailInUseError);
    assert.ok(reason(2) instanceof IdempotencyKeyTakenError);
    assert.ok(reason(3) instanceof ExpectedVersionConflictError);
    assert.deepEqual([reason(3).id, reason(3).expected, reason(3).actual], [ulid(2), 0, 1]);
    assert.ok(reason(6) instanceof EmailInUseError);
    assert.deepEqual((await store.readFrom(4, 10)).map((e) => [e.seq, e.id, e.version]), [
      [5, ulid(10), 1],
      [6, ulid(3), 2],
      [7, ulid(13), 1],
      [8, ulid(15), 1],
    ]);
    assert.equal(store.lastSeq, 8);
  } finally {
    await store.close();
    await schema.drop();
  }
});

Deno.test("a clean group is written at once: a customer's last event decides its row, a delete frees its email", async () => {
  const schema = await createTestSchema();
  const store = await PostgresEventStore.open(schema.url);
  try {
    await store.replay(() => {});
    await store.append([created(1)], expectNew(1));
    await Promise.all([
      store.append([created(9)]),
      store.append([created(2), updated(2, 2)], expectNew(2)),
      store.append([deleted(1, 2)], { expected: { [ulid(1)]: 1 } }),
      store.append([created(3)]),
    ]);
    const rows = await schema.query(
      `SELECT customer_id, version, email FROM ${schema.name}.customers ORDER BY customer_id`,
    );
    assert.deepEqual(rows, [
      { customer_id: ulid(1), version: 2, email: null },
      { customer_id: ulid(2), version: 2, email: updated(2, 2).data!.email },
      { customer_id: ulid(3), version: 1, email: created(3).data!.email },
      { customer_id: ulid(9), version: 1, email: created(9).data!.email },
    ]);
    await store.append([createdWith(4, created(1).data!.email)], expectNew(4));
    assert.equal(store.lastSeq, 7);
  } finally {
    await store.close();
    await schema.drop();
  }
});

Deno.test("two appends of one customer in one group, each one event expecting the same version: one is written, the other refused", async () => {
  const schema = await createTestSchema();
  const store = await PostgresEventStore.open(schema.url);
  try {
    await store.replay(() => {});
    await store.append([created(1)], expectNew(1));
    await store.append([created(2)], expectNew(2));
    const [, ...results] = await Promise.allSettled([
      store.append([created(9)], expectNew(9)),
      store.append([updated(1, 2)], { expected: { [ulid(1)]: 1 } }),
      store.append([updated(1, 2)], { expected: { [ulid(1)]: 1 } }),
      store.append([created(3)], expectNew(3)),
      store.append([created(3)], expectNew(3)),
      store.append([deleted(2, 2)], { expected: { [ulid(2)]: 1 } }),
    ]);
    assert.deepEqual(results.map((r) => r.status), [
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    for (const i of [1, 3]) {
      assert.ok(
        (results[i] as PromiseRejectedResult).reason instanceof ExpectedVersionConflictError,
      );
    }
    assert.deepEqual((await store.readFrom(3, 10)).map((e) => [e.seq, e.id, e.version]), [
      [4, ulid(1), 2],
      [5, ulid(3), 1],
      [6, ulid(2), 2],
    ]);
  } finally {
    await store.close();
    await schema.drop();
  }
});
