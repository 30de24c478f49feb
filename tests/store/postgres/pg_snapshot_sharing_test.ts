/**
 * Replicas share snapshots: each counts the same events towards SNAPSHOT_EVERY, so a compaction
 * due by count leaves the snapshot out while the newest (another replica's) is less than half that
 * many events old. One due by time still writes it (retention drops only what the older kept
 * snapshot covers), and so does one at shutdown after a compaction left it out.
 */
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../../../src/store/postgres/postgres_maintenance.ts";
import { createTestSchema } from "../../support/postgres.ts";

const context = { actor: "snapshot-test", requestId: "req-snapshot" };

/** What a test works with: a store on a fresh schema, a service, creates, the snapshots' seqs. */
interface Customers {
  store: PostgresEventStore;
  service: CustomerService;
  create(from: number, to: number): Promise<void>;
  snapshots(): Promise<number[]>;
}

/** Runs `body` on a fresh schema with customers named after `name`; drops the schema after. */
async function withCustomers(name: string, body: (c: Customers) => Promise<void>): Promise<void> {
  const schema = await createTestSchema();
  const store = await PostgresEventStore.open(schema.url);
  try {
    const service = new CustomerService({
      store,
      projection: new CustomerProjection(),
      clock: Date.now,
      newId: monotonicFactory(),
    });
    const create = async (from: number, to: number) => {
      for (let n = from; n <= to; n++) {
        await service.create({ name: `${name} ${n}`, email: `${name}${n}@example.com` }, {
          ...context,
        });
      }
    };
    const snapshots = async () =>
      (await schema.query(`SELECT seq FROM ${schema.name}.snapshots ORDER BY seq`))
        .map((row) => Number(row.seq));
    await body({ store, service, create, snapshots });
  } finally {
    await store.close();
    await schema.drop();
  }
}

Deno.test("a compaction due by count leaves out the snapshot while the newest is recent; one due by time, or at shutdown, writes it", async () => {
  await withCustomers("shared", async ({ store, service, create, snapshots }) => {
    const options = { snapshotEvery: 10 };
    let now = Date.now();
    const replica = () =>
      new PostgresMaintenance(store, service.snapshots, { ...options, clock: () => now });
    const due = async (maintenance: PostgresMaintenance) => {
      maintenance.noteCommit({ type: "customer.created" });
      await maintenance.settle();
    };

    await create(1, 8);
    await replica().compact();
    assert.deepEqual(await snapshots(), [8]);
    await create(9, 12);
    const leftOut = replica();
    await due(leftOut); // Due by count (12 ≥ 10); 12 − 8 < 10 / 2: the snapshot at 8 stands.
    assert.deepEqual(await snapshots(), [8]);
    await leftOut.compactIfChanged(); // At shutdown: written.
    assert.deepEqual(await snapshots(), [8, 12]);
    await create(13, 14);
    await due(replica()); // 14 − 12 < 5: left out.
    assert.deepEqual(await snapshots(), [8, 12]);
    const hourly = replica();
    now += 3_600_000;
    await due(hourly); // Due by time: written, however recent the newest.
    assert.deepEqual(await snapshots(), [12, 14]);
    await create(15, 20);
    await due(replica()); // 20 − 14 ≥ 5: written.
    assert.deepEqual(await snapshots(), [14, 20]);
  });
});

Deno.test("a compaction due by count waits for as many events as the snapshot holds records, when more than SNAPSHOT_EVERY", async () => {
  await withCustomers("many", async ({ store, service, create, snapshots }) => {
    const written: { snapshot_seq: number; records: number }[] = [];
    const maintenance = new PostgresMaintenance(store, service.snapshots, {
      snapshotEvery: 5,
      onSnapshot: ({ snapshot_seq, records, ms }) => {
        assert.ok(ms >= 0);
        written.push({ snapshot_seq, records });
      },
    });
    const commit = async () => {
      maintenance.noteCommit({ type: "customer.created" });
      await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await create(1, 20);
    await maintenance.compact();
    assert.deepEqual(await snapshots(), [20]);
    await create(21, 39);
    await commit(); // 19 events since: more than SNAPSHOT_EVERY (5), fewer than the 20 records.
    assert.deepEqual(await snapshots(), [20]);
    await create(40, 40);
    await commit(); // 20 events since: due.
    await maintenance.settle();
    assert.deepEqual(await snapshots(), [20, 40]);
    assert.deepEqual(written, [{ snapshot_seq: 20, records: 20 }, {
      snapshot_seq: 40,
      records: 40,
    }]);
  });
});
