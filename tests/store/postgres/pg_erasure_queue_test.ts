/**
 * Erasure work on PostgreSQL is never skipped: what is asked for while an erasure runs (another
 * delete, a compaction) runs right after it, and a delete whose replica stopped before erasing it
 * is erased by a replica that followed it, within half of ERASE_WITHIN_SECONDS. Real services on a
 * real schema, in process, so a test can hold a row lock the erasure waits for.
 */
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import type { WriteContext } from "../../../src/customers/write_context.ts";
import { followLog } from "../../../src/customers/log_follower.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import {
  PostgresMaintenance,
  type PostgresMaintenanceOptions,
} from "../../../src/store/postgres/postgres_maintenance.ts";
import { createTestSchema, type TestSchema } from "../../support/postgres.ts";

const context = (): WriteContext => ({ actor: "erasure-queue-test", requestId: "req-queue" });
const body = (n: number) => ({
  name: `Queued ${n}`,
  email: `queued${n}-${Date.now()}@example.com`,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A replica in process: store, service, and maintenance (recovered, not yet listening). */
async function replica(url: string, options: PostgresMaintenanceOptions = {}) {
  const store = await PostgresEventStore.open(url);
  const service = new CustomerService({
    store,
    projection: new CustomerProjection(),
    clock: Date.now,
    newId: monotonicFactory(),
  });
  const maintenance = new PostgresMaintenance(store, service.snapshots, options);
  await maintenance.recover();
  return { store, service, maintenance };
}

/** The events of `ids` other than their deletes, and the number of snapshots. */
async function leftOver(schema: TestSchema, ids: string[]) {
  const list = ids.map((id) => `'${id}'`).join(",");
  const [{ n }] = await schema.query(
    `SELECT count(*) AS n FROM ${schema.name}.events
      WHERE customer_id IN (${list}) AND type <> 'customer.deleted'`,
  );
  const [{ s }] = await schema.query(`SELECT count(*) AS s FROM ${schema.name}.snapshots`);
  const [{ erased_seq }] = await schema.query(`SELECT erased_seq FROM ${schema.name}.log_start`);
  return { events: Number(n), snapshots: Number(s), horizon: Number(erased_seq) };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

Deno.test("a delete and a compaction asked for while an erasure waits run after it: both deletes erased, the snapshot written", async () => {
  const schema = await createTestSchema();
  const outcomes: unknown[] = [];
  const { store, service, maintenance } = await replica(schema.url, {
    onOutcome: (error) => outcomes.push(error),
  });
  service.addCommitListener((event) => maintenance.noteCommit(event));
  const holder = createPool(schema.url, 1, () => {});
  try {
    const a = (await service.create(body(1), context())).customer;
    const b = (await service.create(body(2), context())).customer;
    // The erasure's last statement moves the horizon in log_start: held here, the erasure waits.
    const lock = await holder.connect();
    await lock.query("BEGIN");
    await lock.query("SELECT first_seq FROM log_start FOR UPDATE");
    await service.delete(a.id, undefined, context());
    await sleep(300);
    const second = await service.delete(b.id, undefined, context());
    maintenance.startCompaction();
    await sleep(300);
    assert.deepEqual(await leftOver(schema, [a.id, b.id]), { events: 2, snapshots: 0, horizon: 0 });
    await lock.query("COMMIT");
    lock.release();

    const done = await until(
      () => leftOver(schema, [a.id, b.id]),
      (left) => left.events === 0 && left.snapshots === 1,
    );
    assert.ok(done.horizon >= second.seq, `horizon ${done.horizon}`);
    assert.ok(store.erasedSeq >= second.seq, `erasedSeq ${store.erasedSeq}`);
    await until(() => Promise.resolve(outcomes.length), (n) => n >= 2);
    assert.ok(outcomes.every((outcome) => outcome === undefined), String(outcomes));
  } finally {
    await maintenance.settle();
    await store.close();
    await holder.end();
    await schema.drop();
  }
});

Deno.test("a delete whose replica stopped before erasing it is erased by a replica that followed it, within half of ERASE_WITHIN_SECONDS", async () => {
  const schema = await createTestSchema();
  // The writer erases nothing: its maintenance never hears of its commits (it "stopped").
  const writer = await replica(schema.url);
  const follower = await replica(schema.url, { eraseWithinMs: 2000 });
  follower.service.follower.addFollowListener((event) => follower.maintenance.noteFollowed(event));
  const stop = followLog(follower.store, follower.service.follower, () => {});
  try {
    const gone = (await writer.service.create(body(3), context())).customer;
    await writer.service.patch(gone.id, { name: "Queued 3b" }, undefined, context());
    const started = Date.now();
    const deleted = await writer.service.delete(gone.id, undefined, context());
    const left = await until(() => leftOver(schema, [gone.id]), (left) => left.events === 0, 5000);
    const tookMs = Date.now() - started;
    assert.ok(tookMs >= 900 && tookMs < 2000, `erased after ${tookMs} ms`);
    assert.ok(left.horizon >= deleted.seq);
    // The writer learns of the horizon with the head, as every replica does.
    await until(() => Promise.resolve(writer.store.erasedSeq), (seq) => seq >= left.horizon);
  } finally {
    stop();
    await follower.maintenance.settle();
    await follower.store.close();
    await writer.store.close();
    await schema.drop();
  }
});
