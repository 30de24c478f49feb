/**
 * `deno task migrate` into PostgreSQL: writes a whole log (events with their own seqs, the state
 * as a snapshot, the tables the append transaction keeps: stream versions, live emails,
 * idempotency keys) and the webhook endpoints with their deliveries logs into an empty database,
 * in one transaction, so a failed copy leaves the database empty; every statement writes at most
 * 5,000 rows.
 */
import type { ReplayedEvent } from "../event_store.ts";
import type { PgClient, PgPool } from "./pg_connection.ts";
import { INSERT_EVENTS } from "./queued_append.ts";
import { insertSnapshot } from "./pg_snapshots.ts";
import { insertWebhooks } from "./webhook_rows.ts";
import type { WebhookStore } from "../webhook_store.ts";

/** The target database already holds a log: migrate copies into an empty one only. */
export class DatabaseNotEmptyError extends Error {
  constructor(events: number, lastSeq: number, webhooks = 0) {
    super(
      `the database in DATABASE_URL is not empty (${events} events, last seq ${lastSeq}` +
        `${webhooks > 0 ? `, ${webhooks} webhook endpoints` : ""}); ` +
        "migrate copies into an empty database only: use a new database or schema",
    );
    this.name = "DatabaseNotEmptyError";
  }
}

/** What goes into the database. */
export interface PostgresImport {
  /** The log's events in seq order, in pages (seqs may have gaps where erasure removed events). */
  events: AsyncIterable<ReplayedEvent[]>;
  /** The first seq the log holds (events before it are past retention). */
  firstSeq: number;
  /** The log head: the seq of the state below. */
  lastSeq: number;
  /** The live customers: the email index and stream versions. */
  customers: Iterable<{ id: string; version: number; email: string }>;
  /** The state at lastSeq as snapshot records (SnapshotSource.records), and their customers. */
  records: Iterable<string>;
  idOf: (record: string) => string;
  /** The webhook endpoints (checkpoints, secrets, versions) and their deliveries logs. */
  webhooks?: Pick<WebhookStore, "list" | "attempts">;
}

/**
 * Throws DatabaseNotEmptyError unless the (migrated) schema holds no event, no snapshot and no
 * webhook endpoint.
 */
export async function requireEmpty(db: PgPool | PgClient): Promise<void> {
  const { rows: [row] } = await db.query<
    { head: string; events: string; snapshots: string; webhooks: string }
  >(
    `SELECT (SELECT seq FROM log_head) AS head, (SELECT count(*) FROM events) AS events,
      (SELECT count(*) FROM snapshots) AS snapshots,
      (SELECT count(*) FROM webhook_endpoints) AS webhooks`,
  );
  const [head, events, snapshots, webhooks] = [row.head, row.events, row.snapshots, row.webhooks]
    .map(Number);
  if (head > 0 || events > 0 || snapshots > 0 || webhooks > 0) {
    throw new DatabaseNotEmptyError(events, head, webhooks);
  }
}

/** Copies `log` into the empty database; resolves with the number of events written. */
export async function importLog(pool: PgPool, log: PostgresImport): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT seq FROM log_head FOR UPDATE");
    await requireEmpty(client);
    let count = 0;
    const versions = new Map<string, number>();
    // A key reused after its 24 h expired appears twice: the later create holds it.
    const keys = new Map<string, [actor: string, key: string, seq: number]>();
    for await (const page of log.events) {
      const column = (pick: (e: ReplayedEvent) => unknown) => page.map(pick);
      await client.query(INSERT_EVENTS, [
        column((e) => e.seq),
        column((e) => e.type),
        column((e) => e.id),
        column((e) => e.version),
        column((e) => e.time),
        column((e) => e.actor),
        column((e) => e.request_id),
        column((e) => e.idempotency_key ?? null),
        column((e) => e.request_hash ?? null),
        column((e) => e.dataJson),
      ]);
      for (const e of page) {
        versions.set(e.id, e.version);
        const key = e.idempotency_key;
        if (e.type === "customer.created" && key !== undefined) {
          keys.set(`${e.actor}\u0000${key}`, [e.actor, key, e.seq]);
        }
      }
      count += page.length;
    }
    const emails = new Map<string, string>();
    for (const customer of log.customers) {
      versions.set(customer.id, customer.version);
      emails.set(customer.id, customer.email);
    }
    const rows = [...versions].map(([id, version]) => [id, version, emails.get(id) ?? null]);
    await inBatches(client, CUSTOMERS, rows);
    await inBatches(client, KEYS, [...keys.values()]);
    await insertSnapshot(client, log.lastSeq, log.records, log.idOf);
    await client.query("UPDATE log_head SET seq = $1", [log.lastSeq]);
    await client.query("UPDATE log_start SET first_seq = $1", [log.firstSeq]);
    if (log.webhooks !== undefined) {
      const webhooks = log.webhooks;
      await insertWebhooks(client, webhooks.list(), (id) => webhooks.attempts(id), "migrate");
    }
    await client.query("COMMIT");
    client.release();
    return count;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(true);
    throw error;
  }
}

const CUSTOMERS = `INSERT INTO customers (customer_id, version, email)
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[])`;
const KEYS = `INSERT INTO idempotency_keys (actor, key, seq)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`;

/** Runs `sql` with its array parameters made of `rows`' columns, 5,000 rows at a time. */
async function inBatches(client: PgClient, sql: string, rows: unknown[][]): Promise<void> {
  for (let at = 0; at < rows.length; at += 5000) {
    const batch = rows.slice(at, at + 5000);
    await client.query(sql, batch[0].map((_, column) => batch.map((row) => row[column])));
  }
}
