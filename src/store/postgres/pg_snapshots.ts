/**
 * Snapshots of a SnapshotSource's state in PostgreSQL (`snapshots`, and the records in
 * `snapshot_chunks`, snapshot_chunks.ts): a replica starts from the newest and replays only the
 * events after it. Writing a snapshot, erasing from snapshots and retention take one advisory
 * lock, so an erasure never misses a snapshot that was being written while it ran.
 */
import type { SnapshotSource } from "../snapshot_source.ts";
import type { PgClient, PgPool } from "./pg_connection.ts";
import { CHUNK_RECORDS, ERASE_SNAPSHOT_RECORDS, INSERT_CHUNK } from "./snapshot_chunks.ts";

/** The advisory lock around every change of snapshots ("cusu" in ASCII). */
export const SNAPSHOT_LOCK = 0x63757375;

/** Chunks read per statement when a snapshot is loaded. */
const CHUNKS_PER_READ = 20;

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

/**
 * Inserts a snapshot at `seq` of `records` in chunks of lines, in the client's transaction. A
 * record or id is one line: records are JSON text, which never holds a raw line break.
 */
export async function insertSnapshot(
  client: PgClient,
  seq: number,
  records: Iterable<string>,
  idOf: (record: string) => string,
): Promise<number> {
  await client.query("INSERT INTO snapshots (seq) VALUES ($1)", [seq]);
  let ids: string[] = [];
  let chunk: string[] = [];
  let n = 0;
  let chunks = 0;
  const flush = async () => {
    await client.query(INSERT_CHUNK, [seq, ++chunks, ids.join("\n"), chunk.join("\n")]);
    ids = [];
    chunk = [];
  };
  for (const record of records) {
    const id = idOf(record);
    if (record === "" || record.includes("\n") || id === "" || id.includes("\n")) {
      throw new Error(`A snapshot record must be one non-empty line (customer ${id})`);
    }
    ids.push(id);
    chunk.push(record);
    n++;
    if (chunk.length === CHUNK_RECORDS) await flush();
  }
  if (chunk.length > 0) await flush();
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
    const { rows: chunks } = await client.query<{ n: number }>(
      "SELECT n FROM snapshot_chunks WHERE snapshot_seq = $1 ORDER BY n",
      [seq],
    );
    for (let i = 0; i < chunks.length; i += CHUNKS_PER_READ) {
      const last = chunks[Math.min(i + CHUNKS_PER_READ, chunks.length) - 1].n;
      // Split by the server, one row per record: a string split here would keep its chunk's
      // whole text alive for as long as any one of its records is.
      const page = await client.query<{ record: string }>(
        `SELECT r.record FROM snapshot_chunks c,
            unnest(string_to_array(c.records, E'\\n')) WITH ORDINALITY r (record, o)
          WHERE c.snapshot_seq = $1 AND c.n >= $2 AND c.n <= $3 ORDER BY c.n, r.o`,
        [seq, chunks[i].n, last],
      );
      for (const row of page.rows) records.push(row.record);
    }
    await client.query("COMMIT");
    client.release();
  } catch (error) {
    client.release(true);
    throw error;
  }
  return { seq, records };
}
