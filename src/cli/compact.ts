import { monotonicFactory } from "ulid";
import { loadConfig } from "../config.ts";
import { createLogger } from "../ops/log.ts";
import { CompactionPolicy } from "../store/jsonl/compaction_policy.ts";
import { CustomerProjection } from "../read_model/projection.ts";
import { CustomerService } from "../customers/customer_service.ts";
import { JsonlEventStore } from "../store/jsonl/jsonl_store.ts";

/** `deno task compact`: on a stopped service, snapshot and compact DATA_DIR (erasing deleted customers). */
const config = loadConfig((name) => Deno.env.get(name));
const log = createLogger("info", (line) => console.log(line));
try {
  const store = await JsonlEventStore.open(config.dataDir, {
    warn: (msg, fields) => log.warn(msg, fields),
  });
  const service = new CustomerService({
    store,
    projection: new CustomerProjection(),
    clock: Date.now,
    newId: monotonicFactory(),
    idempotencyMaxKeys: config.idempotencyMaxKeys,
  });
  const persistence = new CompactionPolicy(store, service, log, {
    snapshotEvery: config.snapshotEvery,
    eraseWithinMs: config.eraseWithinSeconds * 1000,
  });
  const recovery = await persistence.recover();
  log.info("replay done", { snapshot_seq: recovery.snapshotSeq, events: recovery.eventsReplayed });
  await persistence.compact();
  await store.close();
} catch (error) {
  console.error(`compact: ${error instanceof Error ? error.message : error}`);
  Deno.exit(1);
}
