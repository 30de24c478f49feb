/**
 * The PostgreSQL schema of the event store, created and migrated at startup under an advisory
 * lock, so replicas starting together migrate once; the version reached is recorded.
 */
import type { PgPool } from "./pg_connection.ts";
import { APPEND_FUNCTION } from "./append_function.ts";
import { APPEND_FUNCTION_CHECKED } from "./append_function_checked.ts";
import { APPEND_FUNCTION_CONSTRAINED } from "./append_function_constrained.ts";
import { APPEND_FUNCTION_NOTICES } from "./append_function_notices.ts";
import { CUSTOMERS_TABLE } from "./customers_table.ts";
import { SNAPSHOT_CHUNKS } from "./snapshot_chunks.ts";
import { GENERIC_PLANS } from "./generic_plans.ts";

/** The most one migration may take, as the client waits for it. */
const MIGRATION_TIMEOUT_MS = 30 * 60 * 1000;

/** The advisory lock key taken around migrations (any fixed number; "cust" in ASCII). */
const MIGRATION_LOCK = 0x63757374;

/** Each migration, in order: migration i brings the schema to version i + 1. */
const MIGRATIONS: readonly string[] = [
  `
  -- One row: the last seq. Each append transaction locks it first, so commits are serialised and
  -- seqs are assigned in commit order: a reader sees a gap-free prefix of the log.
  CREATE TABLE log_head (id boolean PRIMARY KEY DEFAULT true CHECK (id), seq bigint NOT NULL);
  INSERT INTO log_head (seq) VALUES (0);
  -- data is text, never jsonb: the read model relies on the canonical key order of the text.
  CREATE TABLE events (
    seq bigint PRIMARY KEY,
    type text NOT NULL,
    customer_id text NOT NULL,
    version integer NOT NULL,
    time text NOT NULL,
    actor text NOT NULL,
    request_id text NOT NULL,
    idempotency_key text,
    request_hash text,
    data text,
    UNIQUE (customer_id, version)
  );
  -- The version of every stream, so expected versions are checked in the append transaction.
  CREATE TABLE streams (customer_id text PRIMARY KEY, version integer NOT NULL);
  -- The email of every live customer: the database refuses a second live customer with it.
  CREATE TABLE customer_emails (customer_id text PRIMARY KEY, email text NOT NULL);
  CREATE UNIQUE INDEX customer_emails_email_key ON customer_emails (lower(email));
  -- Idempotency keys per token subject: the first create with a key wins.
  CREATE TABLE idempotency_keys (
    actor text NOT NULL,
    key text NOT NULL,
    seq bigint NOT NULL,
    PRIMARY KEY (actor, key)
  );
  `,
  `
  -- Snapshots of the service's state (opaque records, as the JSONL store's snapshot files hold):
  -- a replica starts from the newest and replays only the events after its seq. The two newest
  -- are kept; erasure deletes the records of deleted customers from both.
  CREATE TABLE snapshots (seq bigint PRIMARY KEY, taken_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE snapshot_records (
    snapshot_seq bigint NOT NULL REFERENCES snapshots ON DELETE CASCADE,
    n integer NOT NULL,
    customer_id text NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (snapshot_seq, n)
  );
  CREATE INDEX snapshot_records_customer ON snapshot_records (customer_id);
  -- One row: the first seq the log still holds (retention deletes a prefix of the log).
  CREATE TABLE log_start (id boolean PRIMARY KEY DEFAULT true CHECK (id), first_seq bigint NOT NULL);
  INSERT INTO log_start (first_seq) VALUES (1);
  `,
  // The whole group commit as one server-side function: one round trip per commit.
  APPEND_FUNCTION,
  `
  -- Webhook endpoints, shared by every replica. A put writes only over an older version, so a
  -- change made from a stale read fails (postgres_webhook_store.ts). Times stay text: the API
  -- serves them as they were given.
  CREATE TABLE webhook_endpoints (
    id text PRIMARY KEY,
    version integer NOT NULL,
    url text NOT NULL,
    types text[] NOT NULL,
    description text NOT NULL,
    enabled boolean NOT NULL,
    disabled_reason text,
    last_seq bigint NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    secrets jsonb NOT NULL
  );
  -- The deliveries log: n orders the attempts; each endpoint keeps its newest (ATTEMPTS_KEPT).
  -- sent_by names the replica that made the attempt (not served; for operators and tests).
  CREATE TABLE webhook_attempts (
    endpoint_id text NOT NULL REFERENCES webhook_endpoints ON DELETE CASCADE,
    n bigint GENERATED ALWAYS AS IDENTITY,
    seq bigint NOT NULL,
    event_type text NOT NULL,
    attempt integer NOT NULL,
    at text NOT NULL,
    status_code integer,
    error text,
    duration_ms double precision NOT NULL,
    next_attempt_at text,
    sent_by text NOT NULL,
    PRIMARY KEY (endpoint_id, n)
  );
  -- Who delivers each endpoint: one replica holds the lease until expires_at and renews it; once
  -- it has expired another replica may take it (webhook_leases.ts).
  CREATE TABLE webhook_leases (
    endpoint_id text PRIMARY KEY REFERENCES webhook_endpoints ON DELETE CASCADE,
    holder text NOT NULL,
    expires_at timestamptz NOT NULL
  );
  `,
  `
  -- The erasure horizon: every customer deleted up to this seq has no earlier event, idempotency
  -- key or snapshot record left. Erasure moves it in its own transaction; every replica reads it
  -- with the head and then forgets those events from memory (EventStore.erasedSeq).
  ALTER TABLE log_start ADD COLUMN erased_seq bigint NOT NULL DEFAULT 0;
  `,
  // Groups that no check could refuse are checked set-wise and written at once.
  APPEND_FUNCTION_CHECKED,
  // A customer's version and email in one row.
  CUSTOMERS_TABLE,
  // Clean groups are written at once and refused by the unique constraints.
  APPEND_FUNCTION_CONSTRAINED,
  // A group's events in as many notifications as they need.
  APPEND_FUNCTION_NOTICES,
  // Snapshot records in chunks of lines.
  SNAPSHOT_CHUNKS,
  // The group commit's statements planned once per connection.
  GENERIC_PLANS,
];

/** The schema version this code needs. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema in the connection's search_path to `target` (SCHEMA_VERSION; tests name an
 * earlier one); returns the version found.
 */
export async function migrate(pool: PgPool, target = SCHEMA_VERSION): Promise<number> {
  const client = await pool.connect();
  try {
    // Replicas starting together wait here while one migrates, however long that takes.
    await client.query("SET statement_timeout = 0");
    await client.query(
      {
        text: "SELECT pg_advisory_lock($1)",
        values: [MIGRATION_LOCK],
        query_timeout: MIGRATION_TIMEOUT_MS,
      } as never,
    );
    try {
      await client.query("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)");
      const { rows } = await client.query<{ version: number }>(
        "SELECT version FROM schema_version",
      );
      const found = rows[0]?.version ?? 0;
      if (found > SCHEMA_VERSION) {
        throw new Error(
          `The database schema is at version ${found}, newer than this server's ${SCHEMA_VERSION}`,
        );
      }
      for (let version = found; version < target; version++) {
        await client.query("BEGIN");
        try {
          await client.query(
            { text: MIGRATIONS[version], query_timeout: MIGRATION_TIMEOUT_MS } as never,
          );
          await client.query("DELETE FROM schema_version");
          await client.query("INSERT INTO schema_version VALUES ($1)", [version + 1]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
      return found;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    // Back to the connection's own limit before the pool lends it again.
    await client.query("RESET statement_timeout").catch(() => {});
    client.release();
  }
}
