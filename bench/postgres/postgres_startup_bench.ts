/**
 * A replica's startup on PostgreSQL with and without a snapshot: `deno task bench
 * --only=pgstartup [--events=N] [--runs=N]` (or `deno run -A bench/postgres/postgres_startup_bench.ts`).
 * Writes the JSONL fixture log (80 % creates, 15 % updates, 5 % deletes), copies it with
 * `deno task migrate --to postgres` into two schemas (timed), removes the snapshot from one, then
 * recovers a store + service from each in alternating rounds, as a starting server does. A second
 * "history" mix (each customer created, then updated 9 times) is appended through the store.
 */
import { monotonicUlid } from "../../src/lib/monotonic_ulid.ts";
import { CustomerService } from "../../src/customers/customer_service.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import { PostgresEventStore } from "../../src/store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../../src/store/postgres/postgres_maintenance.ts";
import type { NewEvent } from "../../src/store/event_store.ts";
import { writeEventLog } from "../support/event_log_fixture.ts";
import { fakeCustomer, fakeUlid } from "../support/fake_customers.ts";
import { seededRandom } from "../support/prng.ts";

/** Options of the run. */
export interface PostgresStartupOptions {
  events?: number;
  runs?: number;
  databaseUrl?: string;
}

async function recoverOnce(url: string) {
  const started = performance.now();
  const store = await PostgresEventStore.open(url);
  const projection = new CustomerProjection();
  const service = new CustomerService({
    store,
    projection,
    clock: Date.now,
    newId: monotonicUlid(),
  });
  const report = await new PostgresMaintenance(store, service.snapshots).recover();
  const ms = performance.now() - started;
  await store.close();
  return { ms, customers: projection.size, ...report };
}

/** Appends `events` events through the store: each customer created, then updated 9 times. */
async function appendHistory(url: string, events: number): Promise<void> {
  const store = await PostgresEventStore.open(url);
  const random = seededRandom(7);
  const start = Date.now() - 86_400_000;
  let batch: NewEvent[] = [];
  for (let n = 0; n < events / 10; n++) {
    const id = fakeUlid(start + n, random);
    const created = new Date(start + n).toISOString();
    for (let version = 1; version <= 10; version++) {
      const time = new Date(start + n + version).toISOString();
      const data = fakeCustomer(n, id, created, time, version, random);
      const type = version === 1 ? "customer.created" : "customer.updated";
      batch.push({ type, id, version, time, data, actor: "bench", request_id: `r${n}.${version}` });
    }
    if (batch.length >= 2000) {
      await store.append(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store.append(batch);
  await store.close();
}

/** Writes a snapshot of what the schema holds, as a compaction does. */
async function snapshot(url: string): Promise<void> {
  const store = await PostgresEventStore.open(url);
  const projection = new CustomerProjection();
  const service = new CustomerService({ store, projection, clock: Date.now, newId: () => "" });
  const maintenance = new PostgresMaintenance(store, service.snapshots);
  await maintenance.recover();
  await maintenance.compact();
  await store.close();
}

/** Runs the benchmark and prints one line per round and a summary. */
export async function runPostgresStartupBench(options: PostgresStartupOptions = {}) {
  const events = options.events ?? 100_000;
  const runs = options.runs ?? 3;
  const base = options.databaseUrl ?? Deno.env.get("BENCH_DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/test";
  const admin = createPool(base, 1, () => {});
  const dataDir = await Deno.makeTempDir({ prefix: "pg-startup-bench-" });
  const schemas = ["fw", "fo", "hw", "ho"].map((kind) => `bench_start_${kind}_${Date.now()}`);
  for (const schema of schemas) await admin.query(`CREATE SCHEMA ${schema}`);
  const urls = schemas.map((schema) => {
    const url = new URL(base);
    url.searchParams.set("options", `-c search_path=${schema}`);
    return url.toString();
  });
  try {
    const fixture = await writeEventLog(dataDir, events);
    console.log(`pgstartup: fixture mix: ${fixture.events} events, ${fixture.live} live customers`);
    for (const url of urls.slice(0, 2)) {
      const started = performance.now();
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", "migrate", "--to", "postgres"],
        cwd: new URL("../..", import.meta.url).pathname,
        env: { DATA_DIR: dataDir, DATABASE_URL: url },
        stdout: "null",
        stderr: "piped",
      }).output();
      if (code !== 0) throw new Error(`migrate failed: ${new TextDecoder().decode(stderr)}`);
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `pgstartup: migrate --to postgres (copy and verify) ${seconds.toFixed(1)} s, ${
          Math.round(fixture.events / seconds)
        } events/s`,
      );
    }
    console.log(`pgstartup: history mix: ${events} events, ${events / 10} customers`);
    for (const url of urls.slice(2)) await appendHistory(url, events);
    await snapshot(urls[2]);
    await admin.query(`DELETE FROM ${schemas[1]}.snapshots`);
    await admin.query(`DELETE FROM ${schemas[3]}.snapshots`);
    const times: number[][] = [[], [], [], []];
    const names = ["fixture with", "fixture without", "history with", "history without"];
    for (let round = 1; round <= runs; round++) {
      for (const [i, url] of urls.entries()) {
        const result = await recoverOnce(url);
        times[i].push(result.ms);
        console.log(
          `pgstartup: round ${round} ${names[i]} snapshot: ${Math.round(result.ms)} ms ` +
            `(snapshot records ${result.snapshotRecords}, events replayed ${result.eventsReplayed}, ` +
            `customers ${result.customers})`,
        );
      }
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1];
    for (const [i, name] of names.entries()) {
      console.log(`pgstartup: median ${name} snapshot: ${Math.round(median(times[i]))} ms`);
    }
  } finally {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  }
}

if (import.meta.main) await runPostgresStartupBench();
