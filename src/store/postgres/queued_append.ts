/** What a group commit works on, shared by its fast path and its savepoint path. */
import type { AppendOptions, NewEvent, StoredEvent } from "../event_store.ts";
import type { PgClient } from "./pg_connection.ts";

/** One queued append and where its outcome goes. */
export interface QueuedAppend {
  events: readonly NewEvent[];
  options?: AppendOptions;
  stored?: StoredEvent[];
  error?: unknown;
}

/**
 * The channel NOTIFY wakes followers on. Channels are per database, not per schema: a group
 * commit's payload names its schema (notified_tail.ts); on any other notification (an erasure, the
 * savepoint path) followers read log_head.
 */
// The server-side appends (append_function*.ts) notify the same channel, spelled out there.
export const LOG_CHANNEL = "customer_api_log";

/** Inserts a batch of events from ten parallel arrays, one per column. */
export const INSERT_EVENTS = `INSERT INTO events
  (seq, type, customer_id, version, time, actor, request_id, idempotency_key, request_hash, data)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::text[], $10::text[])`;

/**
 * Begins the append transaction and locks the log head, in one round trip (two statements in one
 * simple query); resolves with the head's seq.
 */
export async function begin(client: PgClient): Promise<number> {
  // The lock that orders commits: held until COMMIT, so seqs follow commit order.
  const results = await client.query("BEGIN; SELECT seq FROM log_head FOR UPDATE") as unknown as {
    rows: { seq: string }[];
  }[];
  return Number(results[1].rows[0].seq);
}
