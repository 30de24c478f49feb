import { monotonicUlid } from "../lib/monotonic_ulid.ts";
import { dataDirSetting, idempotencyMaxKeysSetting } from "../config.ts";
import { createLogger } from "../ops/log.ts";
import { CompactionPolicy } from "../store/jsonl/compaction_policy.ts";
import { CustomerProjection } from "../read_model/projection.ts";
import { CustomerService } from "../customers/customer_service.ts";
import { JsonlEventStore } from "../store/jsonl/jsonl_store.ts";
import { exitWith, parseCommandLine } from "./command_line.ts";
import { requireEventLog } from "./existing_log.ts";
import { COMPACT_USAGE } from "./usage.ts";

/** `deno task compact`: on a stopped service, snapshot and compact DATA_DIR (erasing deleted customers). */
async function compact(dataDir: string, idempotencyMaxKeys: number): Promise<void> {
  await requireEventLog(dataDir);
  const log = createLogger("info", (line) => console.log(line));
  const store = await JsonlEventStore.open(dataDir, {
    warn: (msg, fields) => log.warn(msg, fields),
  });
  const service = new CustomerService({
    store,
    projection: new CustomerProjection(),
    clock: Date.now,
    newId: monotonicUlid(),
    idempotencyMaxKeys,
  });
  // The policy's thresholds do not matter here: this run compacts once, now.
  const persistence = new CompactionPolicy(store, service.snapshots, log, {
    snapshotEvery: Number.MAX_SAFE_INTEGER,
    eraseWithinMs: 0,
  });
  const recovery = await persistence.recover();
  log.info("replay done", { snapshot_seq: recovery.snapshotSeq, events: recovery.eventsReplayed });
  await persistence.compact();
  await store.close();
}

if (import.meta.main) {
  const command = parseCommandLine(Deno.args, COMPACT_USAGE);
  if (command.kind === "exit") exitWith(command);
  try {
    const env = (name: string) => Deno.env.get(name);
    await compact(dataDirSetting(env), idempotencyMaxKeysSetting(env));
  } catch (error) {
    console.error(`compact: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
