/**
 * Snapshot records in chunks of lines (schema migration 10): written in chunks of CHUNK_RECORDS and
 * read back whole and in order; an erasure takes out exactly the deleted customers' records, in
 * whichever chunk they are; a schema of version 9 keeps its snapshots' records.
 */
import assert from "node:assert/strict";
import { createPool, type PgPool } from "../../../src/store/postgres/pg_connection.ts";
import { insertSnapshot, readNewestSnapshot } from "../../../src/store/postgres/pg_snapshots.ts";
import { eraseDeleted } from "../../../src/store/postgres/pg_retention.ts";
import { migrate } from "../../../src/store/postgres/schema.ts";
import { CHUNK_RECORDS } from "../../../src/store/postgres/snapshot_chunks.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { ulid } from "../../support/events.ts";

/** Customer n's record; the text carries a line-like escape, which must stay as written. */
const record = (n: number) =>
  `{"kind":"customer","data":{"id":"${ulid(n)}","name":"Kunde ${n}\\nZeile","version":1}}`;
const idOf = (text: string) => JSON.parse(text).data.id as string;
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Records `delete` events for these customers after seq 10, as erasure reads them. */
async function recordDeletes(pool: PgPool, customers: number[]): Promise<number> {
  await pool.query(
    `INSERT INTO events (seq, type, customer_id, version, time, actor, request_id)
      SELECT 10 + o, 'customer.deleted', id, 2, '2026-01-01T00:00:00.000Z', 't', 'r'
      FROM unnest($1::text[]) WITH ORDINALITY AS d (id, o)`,
    [customers.map(ulid)],
  );
  return 10 + customers.length;
}

Deno.test("a snapshot is written in chunks and read back in order; erasure takes out exactly the deleted customers' records, and a chunk it empties reads as none", async () => {
  const schema = await createTestSchema();
  const pool = createPool(schema.url, 1, () => {});
  try {
    await migrate(pool);
    // More chunks than one read takes (20), the last one short.
    const count = 21 * CHUNK_RECORDS + CHUNK_RECORDS / 2;
    const client = await pool.connect();
    await client.query("BEGIN");
    await insertSnapshot(client, 10, range(1, count).map(record), idOf);
    await client.query("COMMIT");
    client.release();
    const chunks = await schema.query(
      `SELECT n, first_id, last_id FROM ${schema.name}.snapshot_chunks ORDER BY n`,
    );
    assert.deepEqual(
      chunks,
      range(1, 22).map((n) => ({
        n,
        first_id: ulid((n - 1) * CHUNK_RECORDS + 1),
        last_id: ulid(Math.min(n * CHUNK_RECORDS, count)),
      })),
    );
    assert.deepEqual(await readNewestSnapshot(pool), {
      seq: 10,
      records: range(1, count).map(record),
    });

    // One customer of the first chunk, one of the second, every one of the third, the last one.
    const gone = [
      5,
      CHUNK_RECORDS + CHUNK_RECORDS / 2,
      ...range(2 * CHUNK_RECORDS + 1, 3 * CHUNK_RECORDS),
      count,
    ];
    const head = await recordDeletes(pool, gone);
    await eraseDeleted(pool, 10, head);
    const left = range(1, count).filter((n) => !gone.includes(n));
    assert.deepEqual(await readNewestSnapshot(pool), { seq: 10, records: left.map(record) });
    const ids = await schema.query(`SELECT ids FROM ${schema.name}.snapshot_chunks ORDER BY n`);
    const holds = (n: number) =>
      range((n - 1) * CHUNK_RECORDS + 1, Math.min(n * CHUNK_RECORDS, count));
    assert.deepEqual(
      ids.map((row) => row.ids),
      range(1, 22).map((n) => holds(n).filter((c) => !gone.includes(c)).map(ulid).join("\n")),
    );
    assert.equal(ids[2].ids, "");
  } finally {
    await pool.end();
    await schema.drop();
  }
});

Deno.test("a schema of version 9 is migrated: its snapshots' records move into chunks, in order and whole", async () => {
  const schema = await createTestSchema();
  const pool = createPool(schema.url, 1, () => {});
  try {
    await migrate(pool, 9);
    // Two snapshots, the newer with a gap an erasure left (record 7 gone).
    const newer = range(1, CHUNK_RECORDS + 20).filter((n) => n !== 7);
    await pool.query("INSERT INTO snapshots (seq) VALUES (4), (9)");
    await pool.query(
      `INSERT INTO snapshot_records (snapshot_seq, n, customer_id, record)
        SELECT s, n, id, r FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
          AS t (s, n, id, r)`,
      [
        [4, 4, ...newer.map(() => 9)],
        [1, 2, ...newer],
        [ulid(1), ulid(2), ...newer.map(ulid)],
        [record(1), record(2), ...newer.map(record)],
      ],
    );
    await migrate(pool);
    assert.deepEqual(await readNewestSnapshot(pool), { seq: 9, records: newer.map(record) });
    const chunks = await schema.query(
      `SELECT snapshot_seq::int AS seq, n, first_id, last_id FROM ${schema.name}.snapshot_chunks
        ORDER BY snapshot_seq, n`,
    );
    assert.deepEqual(chunks, [
      { seq: 4, n: 1, first_id: ulid(1), last_id: ulid(2) },
      { seq: 9, n: 1, first_id: ulid(1), last_id: ulid(CHUNK_RECORDS) },
      { seq: 9, n: 2, first_id: ulid(CHUNK_RECORDS + 1), last_id: ulid(CHUNK_RECORDS + 20) },
    ]);
    const tables = await schema.query(`SELECT table_name FROM information_schema.tables
      WHERE table_schema = '${schema.name}' AND table_name = 'snapshot_records'`);
    assert.deepEqual(tables, []);
  } finally {
    await pool.end();
    await schema.drop();
  }
});
