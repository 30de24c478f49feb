/**
 * Snapshots and retention on PostgreSQL with the real service: a replica starts from the newest
 * snapshot and replays only what follows it; events past EVENT_RETENTION that a kept snapshot
 * covers are deleted, readFrom before them rejects with LogTruncatedError, and a new replica still
 * recovers every customer.
 */
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { LogTruncatedError } from "../../../src/store/store_errors.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../../../src/store/postgres/postgres_maintenance.ts";
import { createTestSchema } from "../../support/postgres.ts";

const DAY_MS = 86_400_000;
const context = { actor: "retention-test", requestId: "req-retention" };

/** A replica in process: store, service and maintenance over one clock. */
async function replica(url: string, clock: () => number) {
  const store = await PostgresEventStore.open(url);
  const projection = new CustomerProjection();
  const service = new CustomerService({ store, projection, clock, newId: monotonicFactory() });
  const maintenance = new PostgresMaintenance(store, service.snapshots, {
    retentionMs: 7 * DAY_MS,
    clock,
  });
  const recovery = await maintenance.recover();
  return { store, service, projection, maintenance, recovery };
}

const body = (n: number) => ({ name: `Retained ${n}`, email: `retained${n}@example.com` });

Deno.test("retention deletes the expired prefix a snapshot covers, and a new replica recovers from the snapshot", async () => {
  const schema = await createTestSchema();
  let now = Date.now() - 30 * DAY_MS;
  const clock = () => now;
  try {
    const first = await replica(schema.url, clock);
    const old = [];
    for (let n = 1; n <= 3; n++) old.push(await first.service.create(body(n), { ...context }));
    await first.service.patch(old[0].customer.id, { name: "Retained 1b" }, undefined, {
      ...context,
    });
    await first.maintenance.compact(); // Snapshot at 4; nothing expired before two snapshots.
    assert.equal((await first.store.readFrom(0, 100)).length, 4);

    now = Date.now();
    const recent = await first.service.create(body(4), { ...context });
    await first.maintenance.compact(); // Snapshot at 5; events 1–4 are 30 days old: dropped.
    const rows = await schema.query(`SELECT seq FROM ${schema.name}.events ORDER BY seq`);
    assert.deepEqual(rows.map((row) => Number(row.seq)), [5]);
    await assert.rejects(
      () => first.store.readFrom(0, 100),
      (error) => error instanceof LogTruncatedError && error.oldestSeq === 5,
    );
    assert.deepEqual((await first.store.readFrom(4, 100)).map((e) => e.seq), [5]);
    await first.store.close();

    const second = await replica(schema.url, clock);
    assert.deepEqual(second.recovery, { snapshotSeq: 5, snapshotRecords: 4, eventsReplayed: 0 });
    assert.equal(second.service.get(old[0].customer.id)?.name, "Retained 1b");
    assert.equal(second.service.get(old[0].customer.id)?.version, 2);
    assert.equal(second.service.get(recent.customer.id)?.email, "retained4@example.com");
    // Appends go on after the head, and a third replica replays them after the snapshot.
    await second.service.create(body(5), { ...context });
    await second.store.close();
    const third = await replica(schema.url, clock);
    assert.deepEqual(third.recovery, { snapshotSeq: 5, snapshotRecords: 4, eventsReplayed: 1 });
    assert.equal(third.projection.size, 5);
    await third.store.close();
  } finally {
    await schema.drop();
  }
});
