/**
 * The PostgreSQL log under load: `deno run --allow-net --allow-env bench/postgres/postgres_log_bench.ts
 * [DATABASE_URL] [seconds] [inFlight]`: 8 writers (a store each, so 8 connections) keep `inFlight`
 * one-event appends in flight each; prints transactions/s, events/s and whether the seq has a gap.
 */
import { PostgresEventStore } from "../../src/store/postgres/postgres_event_store.ts";
import { createPool } from "../../src/store/postgres/pg_connection.ts";

const base = Deno.args[0] ?? "postgres://postgres@127.0.0.1:5432/test";
const seconds = Number(Deno.args[1] ?? 5);
const inFlight = Number(Deno.args[2] ?? 16);
const schema = `bench_${Date.now()}`;
const admin = createPool(base, 1, () => {});
await admin.query(`CREATE SCHEMA ${schema}`);
const url = new URL(base);
url.searchParams.set("options", `-c search_path=${schema}`);
try {
  const stores = await Promise.all(
    Array.from({ length: 8 }, () => PostgresEventStore.open(url.toString(), { maxConnections: 1 })),
  );
  for (const store of stores) await store.replay(() => {});
  const until = performance.now() + seconds * 1000;
  let next = 0;
  const writer = async (store: PostgresEventStore) => {
    while (performance.now() < until) {
      const n = next++;
      const id = `01BENCH${String(n).padStart(19, "0")}`;
      const time = new Date().toISOString();
      const data = {
        id,
        name: `Bench ${n}`,
        email: `b${n}@example.com`,
        phone: null,
        address: null,
        metadata: {},
        created_at: time,
        updated_at: time,
        version: 1,
      };
      await store.append([{
        type: "customer.created",
        id,
        version: 1,
        time,
        data,
        actor: "bench",
        request_id: `r${n}`,
      }], { expected: { [id]: 0 } });
    }
  };
  const started = performance.now();
  await Promise.all(
    stores.flatMap((store) => Array.from({ length: inFlight }, () => writer(store))),
  );
  const elapsed = (performance.now() - started) / 1000;
  const { rows: [row] } = await admin.query<{ events: string; transactions: string; max: string }>(
    `SELECT count(*) AS events, count(DISTINCT xmin::text) AS transactions, max(seq) AS max
     FROM ${schema}.events`,
  );
  for (const store of stores) await store.close();
  const events = Number(row.events);
  console.log(JSON.stringify({
    writers: 8,
    in_flight_per_writer: inFlight,
    seconds: Math.round(elapsed * 10) / 10,
    transactions_per_s: Math.round(Number(row.transactions) / elapsed),
    events_per_s: Math.round(events / elapsed),
    events,
    gaps: Number(row.max) - events,
  }));
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
