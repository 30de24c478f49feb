/**
 * The floor of any HTTP service writing to PostgreSQL, for `deno task bench --only=postgres`:
 * `Deno.serve`, the body read, and pgbench's single-row INSERT (the body as its data) committed on
 * a pool of 16 connections, answered 201. No authentication, validation, invariant or ordering: what
 * the HTTP layer and the driver cost on top of pgbench. Prints `{"url": …}` once listening; stops
 * on SIGTERM.
 *
 * deno run --allow-net --allow-env --allow-read bench/postgres/postgres_floor_server.ts DATABASE_URL SCHEMA
 */
import { createPool } from "../../src/store/postgres/pg_connection.ts";

const [base, schema] = Deno.args;
const url = new URL(base);
url.searchParams.set("options", `-c search_path=${schema}`);
const pool = createPool(url.toString(), 16, () => {});
const INSERT = `INSERT INTO rows (customer_id, type, time, data)
  VALUES ($1, 'customer.created', now()::text, $2) RETURNING seq`;

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` })),
}, async (request) => {
  const body = await request.text();
  const { rows: [row] } = await pool.query<{ seq: string }>(INSERT, [crypto.randomUUID(), body]);
  return new Response(`{"seq":${row.seq}}`, {
    status: 201,
    headers: { "content-type": "application/json" },
  });
});

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await pool.end();
  Deno.exit(0);
});
