/**
 * Erasure and retention on PostgreSQL, for every replica at once. Erasure deletes the earlier
 * events of each deleted customer (its delete stays: it holds no personal data), their idempotency
 * keys and its snapshot records, and moves the erasure horizon (`log_start.erased_seq`) in the same
 * transaction, notifying every replica, which then forgets those events from memory. Retention deletes the prefix of the log older than the retention
 * period that the older kept snapshot covers, so a starting replica still finds every event after
 * the snapshot it loads; `log_start` then names the first seq kept.
 */
import { withSnapshotLock } from "./pg_snapshots.ts";
import { ERASE_SNAPSHOT_RECORDS } from "./snapshot_chunks.ts";
import type { PgPool } from "./pg_connection.ts";
import { LOG_CHANNEL } from "./queued_append.ts";

/** The customers deleted in ($2, $1]: their other events and those events' idempotency keys go. */
const ERASE_EVENTS = `WITH
  deleted AS (SELECT customer_id FROM events
    WHERE seq > $2 AND seq <= $1 AND type = 'customer.deleted'),
  gone AS (DELETE FROM events e USING deleted d
    WHERE e.customer_id = d.customer_id AND e.type <> 'customer.deleted' RETURNING e.seq),
  keys AS (DELETE FROM idempotency_keys k USING gone WHERE k.seq = gone.seq)
  SELECT count(*) AS erased FROM gone`;

/**
 * Every customer deleted up to $1 is erased now. A replica erases from the start of the log, or
 * from a horizon it read, in consecutive ranges, so this holds whenever one of its ranges commits.
 */
const MOVE_HORIZON = `UPDATE log_start SET erased_seq = greatest(erased_seq, $1)
  RETURNING pg_notify('${LOG_CHANNEL}', '')`;

/**
 * $1: events older than this time (ISO) go; $2: idempotency keys older than this go with them;
 * $3: at most this many events are read. Only up to the older of the two kept snapshots: none is
 * deleted before there are two.
 */
const DROP_PREFIX = `WITH
  bound AS (SELECT seq FROM snapshots ORDER BY seq DESC OFFSET 1 LIMIT 1),
  upto AS (SELECT max(seq) AS seq FROM (SELECT seq, time FROM events
    WHERE seq <= (SELECT seq FROM bound) ORDER BY seq LIMIT $3) oldest WHERE time < $1),
  keys AS (DELETE FROM idempotency_keys WHERE seq <= (SELECT seq FROM upto) AND seq <=
    (SELECT coalesce(max(seq), 0) FROM events WHERE seq <= (SELECT seq FROM upto) AND time < $2)),
  gone AS (DELETE FROM events WHERE seq <= (SELECT seq FROM upto) RETURNING seq)
  UPDATE log_start SET first_seq = greatest(first_seq, (SELECT seq FROM upto) + 1)
  WHERE (SELECT seq FROM upto) IS NOT NULL
  RETURNING first_seq, (SELECT count(*) FROM gone) AS dropped`;

/** How long an idempotency key is answered again (contract §4): kept at least that long. */
const KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** Events per transaction: each statement stays well inside the statement timeout. */
const CHUNK = 20_000;

/**
 * Erases every customer deleted after `fromSeq` up to `toSeq` (on any replica), a range of the
 * log's tail at a time, not a scan of the log. Every customer deleted up to `fromSeq` must be
 * erased already: each range then moves the erasure horizon to its end. Resolves with the number
 * of events deleted.
 */
export async function eraseDeleted(pool: PgPool, fromSeq: number, toSeq: number): Promise<number> {
  let erased = 0;
  for (let from = fromSeq; from < toSeq; from += CHUNK) {
    const to = Math.min(toSeq, from + CHUNK);
    erased += await withSnapshotLock(pool, async (client) => {
      const { rows } = await client.query<{ erased: string }>(ERASE_EVENTS, [to, from]);
      await client.query(ERASE_SNAPSHOT_RECORDS, [from, to]);
      await client.query(MOVE_HORIZON, [to]);
      return Number(rows[0].erased);
    });
  }
  return erased;
}

/**
 * Deletes the events older than `retentionMs` that a kept snapshot covers, in transactions of up
 * to CHUNK events; resolves with their number.
 */
export async function dropExpired(pool: PgPool, retentionMs: number, now: number): Promise<number> {
  const cutoffs = [now - retentionMs, now - KEY_TTL_MS].map((ms) => new Date(ms).toISOString());
  let dropped = 0;
  for (;;) {
    const chunk = await withSnapshotLock(pool, async (client) => {
      const { rows } = await client.query<{ dropped: string }>(DROP_PREFIX, [...cutoffs, CHUNK]);
      return Number(rows[0]?.dropped ?? 0);
    });
    if (chunk === 0) return dropped;
    dropped += chunk;
  }
}
