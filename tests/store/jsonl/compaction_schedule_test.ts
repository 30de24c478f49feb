/** When the JSONL backend compacts: after SNAPSHOT_EVERY events once writes pause, or at twice. */
import assert from "node:assert/strict";
import { createLogger } from "../../../src/ops/log.ts";
import { CompactionPolicy, QUIET_MS } from "../../../src/store/jsonl/compaction_policy.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { listSnapshots } from "../../../src/store/jsonl/snapshot_file.ts";

const CTX = { actor: "schedule-test", requestId: "req-schedule" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store, service and policy compacting every `every` events, the way main.ts wires them. */
async function withPolicy(
  every: number,
  fn: (node: { store: JsonlEventStore; service: CustomerService; dir: string }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "compaction_schedule_test_" });
  const store = await JsonlEventStore.open(dir);
  let n = 0;
  const newId = () => `01JDQ8Z5K3${String(++n).padStart(16, "0")}`;
  const service = new CustomerService({
    store,
    projection: new CustomerProjection(),
    clock: Date.now,
    newId,
  });
  const policy = new CompactionPolicy(store, service.snapshots, createLogger("error", () => {}), {
    snapshotEvery: every,
    eraseWithinMs: 1e9,
  });
  service.addCommitListener((event) => policy.noteCommit(event));
  await policy.recover();
  try {
    await fn({ store, service, dir });
  } finally {
    await policy.settle();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Creates `count` customers at once: they arrive as one burst of commits. */
function burst(service: CustomerService, count: number) {
  return Promise.all(
    Array.from(
      { length: count },
      (_, i) => service.create({ name: `Burst ${i}`, email: `burst-${i}@example.com` }, CTX),
    ),
  );
}

async function eventuallySnapshot(dir: string, seq: number): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 20) {
    if ((await listSnapshots(dir)).some((s) => s.seq >= seq)) return;
    await sleep(20);
  }
  assert.fail(`no snapshot at seq ${seq} or later within 5 s`);
}

Deno.test("a burst past SNAPSHOT_EVERY is not compacted while it lasts, but once writes pause", async () => {
  await withPolicy(10, async ({ store, service, dir }) => {
    await burst(service, 15);
    await sleep(QUIET_MS / 2);
    // A compaction starts by rolling the log: nothing is closed yet.
    assert.deepEqual(await store.closedSegments(), [], "compacted during the burst");
    await eventuallySnapshot(dir, 15);
  });
});

Deno.test("at twice SNAPSHOT_EVERY events a compaction starts without waiting for a pause", async () => {
  await withPolicy(10, async ({ store, service, dir }) => {
    await burst(service, 25);
    await sleep(QUIET_MS / 2);
    assert.notDeepEqual(await store.closedSegments(), [], "no compaction started");
    await eventuallySnapshot(dir, 20);
  });
});
