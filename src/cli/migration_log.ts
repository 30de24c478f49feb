/** One side of `deno task migrate`: a log opened as a stopped server would, its state recovered. */
import { monotonicUlid } from "../lib/monotonic_ulid.ts";
import { createLogger } from "../ops/log.ts";
import { CustomerProjection } from "../read_model/projection.ts";
import { CustomerService } from "../customers/customer_service.ts";
import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { LogTruncatedError } from "../store/store_errors.ts";
import type { WebhookStore } from "../store/webhook_store.ts";
import { CompactionPolicy } from "../store/jsonl/compaction_policy.ts";
import { JsonlEventStore } from "../store/jsonl/jsonl_store.ts";
import { JsonlWebhookStore } from "../store/jsonl/jsonl_webhook_store.ts";
import { PostgresEventStore } from "../store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../store/postgres/postgres_maintenance.ts";
import { PostgresWebhookStore } from "../store/postgres/postgres_webhook_store.ts";

export interface MigrationLog {
  /** What it is, for messages: DATA_DIR's path or "the database". */
  name: string;
  store: EventStore;
  service: CustomerService;
  projection: CustomerProjection;
  head: number;
  /** Webhook endpoints, where this backend keeps them. */
  webhooks: WebhookStore | undefined;
  close(): Promise<void>;
}

function serviceOver(store: EventStore, idempotencyMaxKeys: number) {
  const projection = new CustomerProjection();
  const service = new CustomerService({
    store,
    projection,
    clock: Date.now,
    newId: monotonicUlid(),
    idempotencyMaxKeys,
  });
  return { projection, service };
}

/** Opens DATA_DIR (taking its lock, so no server may run on it) and recovers its state. */
export async function openJsonlLog(
  dataDir: string,
  idempotencyMaxKeys: number,
): Promise<MigrationLog> {
  const log = createLogger("warn", (line) => console.error(line));
  const store = await JsonlEventStore.open(dataDir, { warn: (m, f) => log.warn(m, f) });
  const { projection, service } = serviceOver(store, idempotencyMaxKeys);
  // Recovery only: the thresholds never start a compaction.
  const policy = new CompactionPolicy(store, service.snapshots, log, {
    snapshotEvery: Number.MAX_SAFE_INTEGER,
    eraseWithinMs: Number.MAX_SAFE_INTEGER,
  });
  await policy.recover();
  const webhooks = await JsonlWebhookStore.open(dataDir, { warn: (m, f) => log.warn(m, f) });
  return {
    name: `DATA_DIR "${dataDir}"`,
    store,
    service,
    projection,
    head: service.appliedSeq,
    webhooks,
    close: async () => {
      await webhooks.close();
      await store.close();
    },
  };
}

/** Opens the database (migrating its schema) and recovers its state. */
export async function openPostgresLog(
  url: string,
  idempotencyMaxKeys: number,
): Promise<MigrationLog> {
  const store = await PostgresEventStore.open(url, { maxConnections: 2 });
  const { projection, service } = serviceOver(store, idempotencyMaxKeys);
  await new PostgresMaintenance(store, service.snapshots).recover();
  const webhooks = await PostgresWebhookStore.open(url, { holder: "migrate" }).catch(
    async (error) => {
      await store.close();
      throw error;
    },
  );
  return {
    name: "the database in DATABASE_URL",
    store,
    service,
    projection,
    head: service.appliedSeq,
    webhooks,
    close: async () => {
      await webhooks.close();
      await store.close();
    },
  };
}

/** The first seq the log still holds (1 unless retention dropped a prefix). */
export async function firstSeqOf(store: EventStore): Promise<number> {
  try {
    await store.readFrom(0, 1);
    return 1;
  } catch (error) {
    if (!(error instanceof LogTruncatedError)) throw error;
    return error.oldestSeq;
  }
}

/** The events from `firstSeq` up to `head`, in pages of up to 5,000. */
export async function* eventPages(
  store: EventStore,
  firstSeq: number,
  head: number,
): AsyncGenerator<ReplayedEvent[]> {
  for (let after = firstSeq - 1; after < head;) {
    const page = (await store.readFrom(after, 5000)).filter((event) => event.seq <= head);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1].seq;
  }
}
