/**
 * What PostgreSQL snapshots cost: two snapshots of RECORDS customer records written, DELETES
 * customers spread over the whole range erased from both, then the newest read back, through the
 * store's own functions on a schema of their own (dropped after).
 *
 * deno run -A bench/postgres/snapshot_cost.ts [--root=DIR,DIR] [--records=300000] [--deletes=1000,50]
 *
 * `--root` measures other checkouts (e.g. the main branch's and this one's) one after another.
 */
import { parseArgs } from "node:util";
import { DATABASE_URL } from "./postgres_bench.ts";
import { fakeCustomer, fakeUlid } from "../support/fake_customers.ts";
import { seededRandom } from "../support/prng.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: { root: { type: "string" }, records: { type: "string" }, deletes: { type: "string" } },
});
const roots = (args.root ?? decodeURIComponent(new URL("../..", import.meta.url).pathname))
  .split(",").map((root) => root.replace(/\/$/, ""));
const count = Number(args.records ?? 300_000);
const deletes = (args.deletes ?? "1000,50").split(",").map(Number);

const random = seededRandom(7);
const time = "2026-01-01T00:00:00.000Z";
// Ids in creation order, as a snapshot holds the customers (and as compaction writes them).
const ids = Array.from({ length: count }, (_, i) => fakeUlid(Date.UTC(2026, 0, 1) + i, random));
/** A customer record as the service writes it into a snapshot. */
const record = (i: number) =>
  `{"kind":"customer","data":${JSON.stringify(fakeCustomer(i, ids[i], time, time, 1, random))}}`;
const records = Array.from({ length: count }, (_, i) => record(i));
const ms = (since: number) => Math.round(performance.now() - since);

for (const root of roots) {
  const { createPool } = await import(`${root}/src/store/postgres/pg_connection.ts`);
  const { migrate } = await import(`${root}/src/store/postgres/schema.ts`);
  const snapshots = await import(`${root}/src/store/postgres/pg_snapshots.ts`);
  const { eraseDeleted } = await import(`${root}/src/store/postgres/pg_retention.ts`);
  for (const erased of deletes) {
    const schema = `snapshot_cost_${Date.now()}`;
    const admin = createPool(DATABASE_URL, 1, () => {});
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const pool = createPool(url.toString(), 2, () => {});
    try {
      await migrate(pool);
      const writes: number[] = [];
      for (const seq of [count, count + 1]) {
        const client = await pool.connect();
        const started = performance.now();
        await client.query("BEGIN");
        await snapshots.insertSnapshot(client, seq, records, (r: string) => JSON.parse(r).data.id);
        await client.query("COMMIT");
        writes.push(ms(started));
        client.release();
      }
      const gone = Array.from({ length: erased }, (_, k) => ids[Math.floor((k * count) / erased)]);
      await pool.query(
        `INSERT INTO events (seq, type, customer_id, version, time, actor, request_id)
          SELECT $1::bigint + o, 'customer.deleted', d, 2, '2026-01-01T00:00:00.000Z', 'bench', 'r'
          FROM unnest($2::text[]) WITH ORDINALITY AS x (d, o)`,
        [count + 1, gone],
      );
      let started = performance.now();
      await eraseDeleted(pool, count + 1, count + 1 + erased);
      const erase = ms(started);
      started = performance.now();
      const read = await snapshots.readNewestSnapshot(pool);
      console.log(
        `${root}: ${count} records, snapshot written in ${writes.join(" and ")} ms; ` +
          `${erased} customers erased from both in ${erase} ms; ` +
          `the newest (${read.records.length} records) read in ${ms(started)} ms`,
      );
    } finally {
      await pool.end();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  }
}
