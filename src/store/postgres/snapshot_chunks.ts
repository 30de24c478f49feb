/**
 * Snapshot records in chunks (schema migration 10): one `snapshot_chunks` row holds up to
 * CHUNK_RECORDS records as lines, with their customer ids as lines in the same order, instead of
 * one `snapshot_records` row and two index entries per record. A snapshot of every live customer
 * then inserts a few compressed rows per thousand records, and an erasure rewrites the chunks
 * that hold the customer, found by the range of ids each chunk covers.
 */

/**
 * Records per chunk: an erasure rewrites one chunk of this many records per customer it finds.
 * Larger chunks write snapshots a little faster; smaller ones do not erase faster, as the cost of
 * a rewrite is mostly fixed (bench/postgres/snapshot_cost.ts measures both).
 */
export const CHUNK_RECORDS = 250;

/**
 * `first_id`/`last_id` bound the chunk's ids in byte order (an erasure may leave them wider than
 * the ids left). lz4, where the server has it, compresses and reads back faster than pglz.
 */
export const SNAPSHOT_CHUNKS = `
CREATE TABLE snapshot_chunks (
  snapshot_seq bigint NOT NULL REFERENCES snapshots ON DELETE CASCADE,
  n integer NOT NULL,
  first_id text COLLATE "C" NOT NULL,
  last_id text COLLATE "C" NOT NULL,
  ids text NOT NULL,
  records text NOT NULL,
  PRIMARY KEY (snapshot_seq, n)
);
DO $$ BEGIN
  EXECUTE 'ALTER TABLE snapshot_chunks ALTER COLUMN ids SET COMPRESSION lz4,
    ALTER COLUMN records SET COMPRESSION lz4';
EXCEPTION WHEN OTHERS THEN NULL; -- A server built without lz4 keeps its default (pglz).
END $$;
INSERT INTO snapshot_chunks (snapshot_seq, n, first_id, last_id, ids, records)
  SELECT snapshot_seq, (n - 1) / ${CHUNK_RECORDS} + 1, min(customer_id COLLATE "C"),
    max(customer_id COLLATE "C"), string_agg(customer_id, E'\\n' ORDER BY n),
    string_agg(record, E'\\n' ORDER BY n)
  FROM snapshot_records GROUP BY snapshot_seq, (n - 1) / ${CHUNK_RECORDS};
DROP TABLE snapshot_records;
`;

/** Inserts chunk $2 of snapshot $1: ids ($3) and records ($4) as lines, in the same order. */
export const INSERT_CHUNK = `INSERT INTO snapshot_chunks (snapshot_seq, n, first_id, last_id, ids,
    records)
  SELECT $1, $2, min(id COLLATE "C"), max(id COLLATE "C"), $3, $4
  FROM unnest(string_to_array($3, E'\\n')) id`;

/**
 * Takes the records of every customer deleted in ($1, $2] out of the chunks that hold them (a
 * range of the log's tail, read from the oldest kept snapshot on: a customer deleted before it is
 * in no snapshot): a chunk is looked into only when its range of ids covers the customer, and
 * rewritten only when one of its lines is the customer's id. A chunk left with no record keeps
 * its row, with empty lines.
 */
export const ERASE_SNAPSHOT_RECORDS = `WITH
  d AS (SELECT DISTINCT customer_id AS id FROM events
    WHERE seq > greatest($1, (SELECT coalesce(min(seq), 0) FROM snapshots)) AND seq <= $2
      AND type = 'customer.deleted'),
  hit AS (SELECT DISTINCT c.snapshot_seq, c.n FROM snapshot_chunks c
    JOIN d ON d.id COLLATE "C" BETWEEN c.first_id AND c.last_id
    WHERE strpos(E'\\n' || c.ids || E'\\n', E'\\n' || d.id || E'\\n') > 0)
  UPDATE snapshot_chunks c SET (ids, records) = (
      SELECT coalesce(string_agg(t.id, E'\\n' ORDER BY t.o), ''),
        coalesce(string_agg(t.record, E'\\n' ORDER BY t.o), '')
      FROM unnest(string_to_array(c.ids, E'\\n'), string_to_array(c.records, E'\\n'))
        WITH ORDINALITY t (id, record, o)
      WHERE t.id NOT IN (SELECT id FROM d))
  FROM hit WHERE c.snapshot_seq = hit.snapshot_seq AND c.n = hit.n`;
