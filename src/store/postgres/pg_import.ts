/**
 * `deno task migrate` into PostgreSQL: writes a whole log (events with their own seqs, the state
 * as a snapshot, the tables the append transaction keeps) into an empty database, in one
 * transaction, so a failed copy leaves the database empty.
 */
import type { ReplayedEvent } from "../event_store.ts";
import type { PgClient, PgPool } from "./pg_connection.ts";
import { INSERT_EVENTS } from "./queued_append.ts";
import { insertSnapshot } from "./pg_snapshots.ts";

/** The target database already holds a log: migrate copies into an empty one only. */
export class DatabaseNotEmptyError extends Error {
  constructor(events: number, lastSeq: number) {
    super(
      `the database in DATABASE_URL is not empty (${events} events, last seq ${lastSeq}); ` +
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
}

/** Throws DatabaseNotEmptyError unless the (migrated) schema holds no event and no snapshot. */
export async function requireEmpty(db: PgPool | PgClient): Promise<void> {
  const { rows: [row] } = await db.query<{ head: string; events: string; snapshots: string }>(
    `SELECT (SELECT seq FROM log_head) AS head, (SELECT count(*) FROM events) AS events,
      (SELECT count(*) FROM snapshots) AS snapshots`,
  );
  if (Number(row.head) > 0 || Number(row.events) > 0 || Number(row.snapshots) > 0) {
    throw new DatabaseNotEmptyError(Number(row.events), Number(row.head));
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
      count += page.length;
    }
    await deriveTables(client, [...log.customers]);
    await insertSnapshot(client, log.lastSeq, log.records, log.idOf);
    await client.query("UPDATE log_head SET seq = $1", [log.lastSeq]);
    await client.query("UPDATE log_start SET first_seq = $1", [log.firstSeq]);
    await client.query("COMMIT");
    client.release();
    return count;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(true);
    throw error;
  }
}

/** Stream versions, live emails and idempotency keys, as the append transaction keeps them. */
async function deriveTables(
  client: PgClient,
  customers: { id: string; version: number; email: string }[],
): Promise<void> {
  await client.query(
    `INSERT INTO streams (customer_id, version)
      SELECT customer_id, max(version) FROM events GROUP BY customer_id`,
  );
  await client.query(
    `INSERT INTO streams (customer_id, version) SELECT * FROM unnest($1::text[], $2::int[])
      ON CONFLICT (customer_id) DO UPDATE SET version = greatest(streams.version, excluded.version)`,
    [customers.map((c) => c.id), customers.map((c) => c.version)],
  );
  await client.query(
    `INSERT INTO customer_emails (customer_id, email) SELECT * FROM unnest($1::text[], $2::text[])`,
    [customers.map((c) => c.id), customers.map((c) => c.email)],
  );
  // A key reused after its 24 h expired appears twice: the later create holds it.
  await client.query(
    `INSERT INTO idempotency_keys (actor, key, seq)
      SELECT DISTINCT ON (actor, idempotency_key) actor, idempotency_key, seq FROM events
      WHERE type = 'customer.created' AND idempotency_key IS NOT NULL
      ORDER BY actor, idempotency_key, seq DESC`,
  );
}
