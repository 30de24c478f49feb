/**
 * Snapshots of a SnapshotSource's state in PostgreSQL (`snapshots`, `snapshot_records`): a replica
 * starts from the newest and replays only the events after it. Writing a snapshot, erasing from
 * snapshots and retention take one advisory lock, so an erasure never misses a snapshot that was
 * being written while it ran.
 */
import type { SnapshotSource } from "../snapshot_source.ts";
import type { PgClient, PgPool } from "./pg_connection.ts";
import { intArray, lines, textArray } from "./array_literal.ts";

/** The advisory lock around every change of snapshots ("cusu" in ASCII). */
export const SNAPSHOT_LOCK = 0x63757375;
const BATCH = 2000;

/**
 * Deletes the snapshot records of every customer deleted in ($1, $2] (a range of the log's tail,
 * read from the oldest kept snapshot on: a customer deleted before it is in no snapshot).
 */
export const ERASE_SNAPSHOT_RECORDS = `DELETE FROM snapshot_records r USING events d
  WHERE d.seq > greatest($1, (SELECT coalesce(min(seq), 0) FROM snapshots)) AND d.seq <= $2
    AND d.type = 'customer.deleted' AND r.customer_id = d.customer_id`;

/** Runs `work` in a transaction that holds the snapshot lock (waiting for it). */
export async function withSnapshotLock<T>(
  pool: PgPool,
  work: (client: PgClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [SNAPSHOT_LOCK]);
    const result = await work(client);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(true);
    throw error;
  }
}

/**
 * Writes the source's state at its applied seq (captured at the call), unless a snapshot at that
 * seq or later exists, or one fewer than `recent` seqs before it; keeps the two newest. Resolves
 * with the newest snapshot's seq then (the one written, or the one that stood for it), and when
 * this call wrote it, its records and the milliseconds it took.
 */
export function writeSnapshot(
  pool: PgPool,
  source: SnapshotSource,
  recent = 0,
): Promise<{ seq: number; written?: { records: number; ms: number } }> {
  const started = performance.now();
  const seq = source.appliedSeq;
  const records = source.records();
  return withSnapshotLock(pool, async (client) => {
    const { rows } = await client.query<{ seq: string | null }>(
      "SELECT max(seq) AS seq FROM snapshots",
    );
    const newest = Number(rows[0].seq ?? 0);
    if (newest >= seq || (newest > 0 && newest >= seq - recent)) return { seq: newest };
    const n = await insertSnapshot(client, seq, records, (record) => source.idOf(record));
    // Customers deleted after `seq` but before this commit are in the records: erased here.
    await client.query(ERASE_SNAPSHOT_RECORDS, [seq, Number.MAX_SAFE_INTEGER]);
    await client.query(
      `DELETE FROM snapshots WHERE seq < (SELECT seq FROM snapshots ORDER BY seq DESC OFFSET 1 LIMIT 1)`,
    );
    return { seq, written: { records: n, ms: Math.round(performance.now() - started) } };
  });
}

/** Inserts a snapshot at `seq` of `records` in batches, in the client's transaction. */
export async function insertSnapshot(
  client: PgClient,
  seq: number,
  records: Iterable<string>,
  idOf: (record: string) => string,
): Promise<number> {
  await client.query("INSERT INTO snapshots (seq) VALUES ($1)", [seq]);
  let batch: string[] = [];
  let n = 0;
  const flush = async () => {
    const first = n - batch.length + 1;
    // Records are lines of the snapshot format: sent as lines, they need no escaping.
    const text = lines(batch);
    await client.query(
      `INSERT INTO snapshot_records (snapshot_seq, n, customer_id, record)
        SELECT $1, * FROM unnest($2::int[], $3::text[], ${
        text === undefined ? "$4::text[]" : "string_to_array($4, E'\\n', '')"
      })`,
      [
        seq,
        intArray(batch.map((_, i) => first + i)),
        textArray(batch.map(idOf)),
        text ?? textArray(batch),
      ],
    );
    batch = [];
  };
  for (const record of records) {
    batch.push(record);
    n++;
    if (batch.length === BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  return n;
}

/**
 * Reads the newest snapshot in one consistent read and restores it into the (empty) source, only
 * once it was read whole. Resolves with its seq (0: none) and its number of records.
 */
export async function loadSnapshot(
  pool: PgPool,
  source: SnapshotSource,
): Promise<{ seq: number; records: number }> {
  const { seq, records } = await readNewestSnapshot(pool);
  for (const record of records) source.restore(record);
  return { seq, records: records.length };
}

/** The newest snapshot's seq (0: none) and records, read whole in one consistent read. */
export async function readNewestSnapshot(
  pool: PgPool,
): Promise<{ seq: number; records: string[] }> {
  const client = await pool.connect();
  const records: string[] = [];
  let seq = 0;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const { rows } = await client.query<{ seq: string | null }>(
      "SELECT max(seq) AS seq FROM snapshots",
    );
    seq = Number(rows[0].seq ?? 0);
    for (let after = 0; seq > 0;) {
      const page = await client.query<{ n: number; record: string }>(
        `SELECT n, record FROM snapshot_records WHERE snapshot_seq = $1 AND n > $2
          ORDER BY n LIMIT 5000`,
        [seq, after],
      );
      if (page.rows.length === 0) break;
      for (const row of page.rows) records.push(row.record);
      after = page.rows[page.rows.length - 1].n;
    }
    await client.query("COMMIT");
    client.release();
  } catch (error) {
    client.release(true);
    throw error;
  }
  return { seq, records };
}
