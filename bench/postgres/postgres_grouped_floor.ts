/**
 * The grouped HTTP floor, for `deno task bench --only=postgres`: the least a service keeping the
 * contract does for a durable create on PostgreSQL, with the group commit the service uses.
 * `Deno.serve`, a token found by its string once verified, the body parsed, an id made, the
 * customer's text built, and the creates that arrive together committed as ONE multi-row INSERT
 * (unnest) per group, one round trip, the next group filling while one commits; 201 with the body
 * and `Location`. No validation, invariant or ordering beyond the table's own constraints.
 *
 * TABLE picks what a group writes: `plain` (pgbench's table: a bigserial key), `events` (the
 * events table's columns and indexes: seq, and (customer id, version) unique) or `customers`
 * (`events`, and each customer's row keyed by id with its lowercased email unique, in one
 * statement). Prints `{"url": …}` once listening; stops on SIGTERM.
 *
 * deno run --allow-net --allow-env --allow-read bench/postgres/postgres_grouped_floor.ts DATABASE_URL SCHEMA TABLE
 */
import { jwtVerify } from "jose";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import { monotonicUlid } from "../../src/lib/monotonic_ulid.ts";

const [base, schema, table = "plain"] = Deno.args;
const url = new URL(base);
url.searchParams.set("options", `-c search_path=${schema}`);
const pool = createPool(url.toString(), 1, () => {});
const secret = new TextEncoder().encode(Deno.env.get("JWT_SECRET") ?? "");
const nextId = monotonicUlid();
const grants = new Map<string, number>();

/** The DDL of each table the floor can write. */
export const GROUPED_TABLES: Record<string, string> = {
  plain: `CREATE TABLE IF NOT EXISTS rows (seq bigserial PRIMARY KEY, customer_id text NOT NULL,
    type text NOT NULL, time text NOT NULL, data text NOT NULL)`,
  events: `CREATE TABLE IF NOT EXISTS floor_events (seq bigserial PRIMARY KEY,
    type text NOT NULL, customer_id text NOT NULL, version integer NOT NULL, time text NOT NULL,
    actor text NOT NULL, request_id text NOT NULL, data text, UNIQUE (customer_id, version))`,
  customers: `CREATE TABLE IF NOT EXISTS floor_customers (customer_id text PRIMARY KEY,
    version integer NOT NULL, email text);
    CREATE UNIQUE INDEX IF NOT EXISTS floor_customers_email ON floor_customers (lower(email))`,
};

const EVENTS = `INSERT INTO floor_events (type, customer_id, version, time, actor, request_id, data)
  SELECT 'customer.created', id, 1, time, 'bench', rid, data
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t (id, time, rid, data)`;
/** Each table's statement; its parameters are ids, times, request ids, texts and emails. */
const INSERTS: Record<string, string> = {
  plain: `INSERT INTO rows (customer_id, type, time, data)
    SELECT id, 'customer.created', time, data
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
      AS t (id, time, rid, data, email)`,
  events: EVENTS.replace("$4::text[])", "$4::text[], $5::text[])")
    .replace("(id, time, rid, data)", "(id, time, rid, data, email)"),
  customers: `WITH e AS (${EVENTS})
    INSERT INTO floor_customers (customer_id, version, email)
    SELECT id, 1, email FROM unnest($1::text[], $5::text[]) AS t (id, email)`,
};

interface Create {
  id: string;
  time: string;
  requestId: string;
  text: string;
  email: string;
  done: () => void;
  failed: (error: unknown) => void;
}

let queue: Create[] = [];
let flushing = false;

/** Resolves once the create is committed with the group it joined. */
function commit(create: Omit<Create, "done" | "failed">): Promise<void> {
  return new Promise((done, failed) => {
    queue.push({ ...create, done, failed });
    if (!flushing) void flush();
  });
}

/** One group at a time in flight on one connection; the next fills meanwhile. */
async function flush(): Promise<void> {
  flushing = true;
  const client = await pool.connect();
  try {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        await client.query({
          name: "group",
          text: INSERTS[table],
          values: [
            group.map((c) => c.id),
            group.map((c) => c.time),
            group.map((c) => c.requestId),
            group.map((c) => c.text),
            group.map((c) => c.email),
          ],
        } as never);
        for (const c of group) c.done();
      } catch (error) {
        for (const c of group) c.failed(error);
      }
    }
  } finally {
    client.release();
    flushing = false;
  }
}

async function granted(request: Request): Promise<boolean> {
  const token = request.headers.get("authorization")?.slice(7) ?? "";
  let exp = grants.get(token);
  if (exp === undefined) {
    const verified = await jwtVerify(token, secret, { algorithms: ["HS256"] }).catch(() => null);
    if (verified === null) return false;
    grants.set(token, exp = verified.payload.exp ?? 0);
  }
  return exp * 1000 > Date.now();
}

async function handle(request: Request): Promise<Response> {
  if (!(await granted(request))) return new Response(null, { status: 401 });
  const fields = await request.json();
  const id = nextId();
  const now = new Date().toISOString();
  const text = JSON.stringify({
    id,
    name: fields.name,
    email: fields.email,
    phone: fields.phone ?? null,
    address: fields.address ?? null,
    metadata: fields.metadata ?? {},
    created_at: now,
    updated_at: now,
    version: 1,
  });
  const requestId = crypto.randomUUID();
  await commit({ id, time: now, requestId, text, email: String(fields.email) });
  return new Response(text, {
    status: 201,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-request-id": requestId,
      "x-content-type-options": "nosniff",
      etag: '"1"',
      location: `/api/customers/${id}`,
    },
  });
}

if (import.meta.main) {
  if (!(table in INSERTS)) throw new Error(`TABLE must be one of ${Object.keys(INSERTS)}`);
  for (const name of table === "customers" ? ["events", "customers"] : [table]) {
    await pool.query(GROUPED_TABLES[name]);
  }
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` })),
  }, handle);
  Deno.addSignalListener("SIGTERM", async () => {
    await server.shutdown();
    await pool.end();
    Deno.exit(0);
  });
}
