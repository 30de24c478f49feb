/** `deno task migrate`'s copy: into an empty target, then read back and compared by digest. */
import {
  databaseUrlSetting,
  dataDirSetting,
  idempotencyMaxKeysSetting,
  segmentMaxBytesSetting,
} from "../config.ts";
import type { WebhookStore } from "../store/webhook_store.ts";
import { PostgresEventStore } from "../store/postgres/postgres_event_store.ts";
import * as postgresImport from "../store/postgres/pg_import.ts";
import * as jsonlImport from "../store/jsonl/jsonl_import.ts";
import { JsonlWebhookStore } from "../store/jsonl/jsonl_webhook_store.ts";
import { customerFacts } from "../read_model/customer_facts.ts";
import { requireEventLog } from "./existing_log.ts";
import { differences, digestOf, type LogDigest } from "./log_digest.ts";
import { eventPages, type MigrationLog, openJsonlLog, openPostgresLog } from "./migration_log.ts";

/** EX_CANTCREAT: the target is not empty, so nothing was copied. */
export const EXIT_TARGET_NOT_EMPTY = 73;

/** Where to copy to; the other setting names the source. */
type Direction = "postgres" | "jsonl";

interface Settings {
  dataDir: string;
  databaseUrl: string;
  idempotencyMaxKeys: number;
  segmentMaxBytes: number;
}

/** Copies endpoints and their deliveries logs (oldest attempt first) into an empty store. */
async function copyWebhooks(from: WebhookStore, to: WebhookStore): Promise<number> {
  const endpoints = from.list();
  for (const endpoint of endpoints) {
    await to.restore(endpoint);
    for (const attempt of from.attempts(endpoint.id).reverse()) {
      await to.recordAttempt(endpoint.id, attempt);
    }
  }
  return endpoints.length;
}

async function toPostgres(settings: Settings): Promise<MigrationLog> {
  await requireEventLog(settings.dataDir);
  const target = await PostgresEventStore.open(settings.databaseUrl, { maxConnections: 1 });
  try {
    await postgresImport.requireEmpty(target.pool);
    const source = await openJsonlLog(settings.dataDir, settings.idempotencyMaxKeys);
    try {
      const sourceDigest = await digestOf(source);
      const copied = await postgresImport.importLog(target.pool, {
        events: eventPages(source.store, sourceDigest.firstSeq, source.head),
        firstSeq: sourceDigest.firstSeq,
        lastSeq: source.head,
        customers: source.projection.all().map((record) => customerFacts(record.json)),
        records: source.service.snapshots.records(),
        idOf: (record) => source.service.snapshots.idOf(record),
        webhooks: source.webhooks,
      });
      console.log(
        `copied ${copied} events, ${source.projection.size} customers and ` +
          `${source.webhooks?.list().length ?? 0} webhook endpoints`,
      );
      return await checked(
        sourceDigest,
        () => openPostgresLog(settings.databaseUrl, settings.idempotencyMaxKeys),
      );
    } finally {
      await source.close();
    }
  } finally {
    await target.close();
  }
}

async function toJsonl(settings: Settings): Promise<MigrationLog> {
  await jsonlImport.requireEmptyDataDir(settings.dataDir);
  const source = await openPostgresLog(settings.databaseUrl, settings.idempotencyMaxKeys);
  try {
    const sourceDigest = await digestOf(source);
    const copied = await jsonlImport.importLog(settings.dataDir, {
      events: eventPages(source.store, sourceDigest.firstSeq, source.head),
      firstSeq: sourceDigest.firstSeq,
      lastSeq: source.head,
      records: source.service.snapshots.records(),
    }, settings.segmentMaxBytes);
    let endpoints = 0;
    if (source.webhooks !== undefined) {
      const webhooks = await JsonlWebhookStore.open(settings.dataDir);
      endpoints = await copyWebhooks(source.webhooks, webhooks);
      await webhooks.close();
    }
    console.log(
      `copied ${copied} events, ${source.projection.size} customers and ${endpoints} webhook endpoints`,
    );
    return await checked(
      sourceDigest,
      () => openJsonlLog(settings.dataDir, settings.idempotencyMaxKeys),
    );
  } finally {
    await source.close();
  }
}

/** Opens the copy as a starting server would and compares it with the source's digest. */
async function checked(
  source: LogDigest,
  openCopy: () => Promise<MigrationLog>,
): Promise<MigrationLog> {
  const copy = await openCopy();
  try {
    const found = differences(source, await digestOf(copy));
    if (found.length > 0) throw new Error(`the copy differs from the source: ${found.join("; ")}`);
    console.log(`verified: ${JSON.stringify(source)}`);
    return copy;
  } finally {
    await copy.close();
  }
}

async function migrate(direction: Direction, settings: Settings): Promise<number> {
  try {
    const copy = direction === "postgres" ? await toPostgres(settings) : await toJsonl(settings);
    console.log(`migrate: done; ${copy.name} holds the copy`);
    return 0;
  } catch (error) {
    const notEmpty = error instanceof postgresImport.DatabaseNotEmptyError ||
      error instanceof jsonlImport.DataDirNotEmptyError;
    console.error(`migrate: ${error instanceof Error ? error.message : error}`);
    return notEmpty ? EXIT_TARGET_NOT_EMPTY : 1;
  }
}

if (import.meta.main) {
  // Run by migrate.ts, which checked the command line and the settings.
  const env = (name: string) => Deno.env.get(name);
  const settings = {
    dataDir: dataDirSetting(env),
    databaseUrl: databaseUrlSetting(env)!,
    idempotencyMaxKeys: idempotencyMaxKeysSetting(env),
    segmentMaxBytes: segmentMaxBytesSetting(env),
  };
  Deno.exit(await migrate(Deno.args[0] as Direction, settings));
}
