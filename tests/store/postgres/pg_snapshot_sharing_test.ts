/**
 * Replicas share snapshots: each counts the same events towards SNAPSHOT_EVERY, so a compaction
 * that falls due leaves the snapshot out while the newest (another replica's) is less than half
 * that many events old; a compaction asked for outright (shutdown, the CLI) always writes one.
 */
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../../../src/store/postgres/postgres_maintenance.ts";
import { createTestSchema } from "../../support/postgres.ts";

const context = { actor: "snapshot-test", requestId: "req-snapshot" };

Deno.test("a compaction that falls due leaves out the snapshot while the newest is recent; one asked for writes it", async () => {
  const schema = await createTestSchema();
  const store = await PostgresEventStore.open(schema.url);
  try {
    const service = new CustomerService({
      store,
      projection: new CustomerProjection(),
      clock: Date.now,
      newId: monotonicFactory(),
    });
    const options = { snapshotEvery: 10 };
    const create = async (from: number, to: number) => {
      for (let n = from; n <= to; n++) {
        await service.create({ name: `Shared ${n}`, email: `shared${n}@example.com` }, {
          ...context,
        });
      }
    };
    const snapshots = async () =>
      (await schema.query(`SELECT seq FROM ${schema.name}.snapshots ORDER BY seq`))
        .map((row) => Number(row.seq));
    const dueCompaction = async () => {
      const maintenance = new PostgresMaintenance(store, service.snapshots, options);
      maintenance.startCompaction();
      await maintenance.settle();
    };

    await create(1, 8);
    await new PostgresMaintenance(store, service.snapshots, options).compact();
    assert.deepEqual(await snapshots(), [8]);
    await create(9, 12);
    await dueCompaction(); // 12 − 8 < 10 / 2: the snapshot at 8 serves.
    assert.deepEqual(await snapshots(), [8]);
    await create(13, 14);
    await dueCompaction(); // 14 − 8 ≥ 5: written.
    assert.deepEqual(await snapshots(), [8, 14]);
    await create(15, 15);
    await new PostgresMaintenance(store, service.snapshots, options).compact();
    assert.deepEqual(await snapshots(), [14, 15]);
  } finally {
    await store.close();
    await schema.drop();
  }
});
