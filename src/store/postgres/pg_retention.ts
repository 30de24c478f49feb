/**
 * Erasure and retention on PostgreSQL, for every replica at once. Erasure deletes the earlier
 * events of each deleted customer (its delete stays: it holds no personal data), their idempotency
 * keys and its snapshot records. Retention deletes the prefix of the log older than the retention
 * period that the older kept snapshot covers, so a starting replica still finds every event after
 * the snapshot it loads; `log_start` then names the first seq kept.
 */
import { ERASE_SNAPSHOT_RECORDS, withSnapshotLock } from "./pg_snapshots.ts";
import type { PgPool } from "./pg_connection.ts";

/** The customers deleted in ($2, $1]: their other events and those events' idempotency keys go. */
const ERASE_EVENTS = `WITH
  deleted AS (SELECT customer_id FROM events
    WHERE seq > $2 AND seq <= $1 AND type = 'customer.deleted'),
  gone AS (DELETE FROM events e USING deleted d
    WHERE e.customer_id = d.customer_id AND e.type <> 'customer.deleted' RETURNING e.seq),
  keys AS (DELETE FROM idempotency_keys k USING gone WHERE k.seq = gone.seq)
  SELECT count(*) AS erased FROM gone`;

/**
 * $1: events older than this time (ISO) go; $2: idempotency keys older than this go with them.
 * Only up to the older of the two kept snapshots: none is deleted before there are two.
 */
const DROP_PREFIX = `WITH
  bound AS (SELECT seq FROM snapshots ORDER BY seq DESC OFFSET 1 LIMIT 1),
  upto AS (SELECT max(seq) AS seq FROM events WHERE seq <= (SELECT seq FROM bound) AND time < $1),
  keys AS (DELETE FROM idempotency_keys WHERE seq <= (SELECT seq FROM upto) AND seq <=
    (SELECT coalesce(max(seq), 0) FROM events WHERE seq <= (SELECT seq FROM upto) AND time < $2)),
  gone AS (DELETE FROM events WHERE seq <= (SELECT seq FROM upto) RETURNING seq)
  UPDATE log_start SET first_seq = greatest(first_seq, (SELECT seq FROM upto) + 1)
  WHERE (SELECT seq FROM upto) IS NOT NULL
  RETURNING first_seq, (SELECT count(*) FROM gone) AS dropped`;

/** How long an idempotency key is answered again (contract §4): kept at least that long. */
const KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Erases every customer deleted after `fromSeq` up to `toSeq` (on any replica): a range of the
 * log's tail, not a scan of it. Resolves with the number of events deleted.
 */
export function eraseDeleted(pool: PgPool, fromSeq: number, toSeq: number): Promise<number> {
  return withSnapshotLock(pool, async (client) => {
    const { rows } = await client.query<{ erased: string }>(ERASE_EVENTS, [toSeq, fromSeq]);
    await client.query(ERASE_SNAPSHOT_RECORDS);
    return Number(rows[0].erased);
  });
}

/** Deletes the events older than `retentionMs` that a kept snapshot covers; resolves with their number. */
export function dropExpired(pool: PgPool, retentionMs: number, now: number): Promise<number> {
  return withSnapshotLock(pool, async (client) => {
    const { rows } = await client.query<{ dropped: string }>(DROP_PREFIX, [
      new Date(now - retentionMs).toISOString(),
      new Date(now - KEY_TTL_MS).toISOString(),
    ]);
    return Number(rows[0]?.dropped ?? 0);
  });
}
