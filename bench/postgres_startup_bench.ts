/**
 * A replica's startup on PostgreSQL with and without a snapshot: `deno task bench
 * --only=pgstartup [--events=N] [--runs=N]` (or `deno run -A bench/postgres_startup_bench.ts`).
 * Writes the JSONL fixture log (80 % creates, 15 % updates, 5 % deletes), copies it with
 * `deno task migrate --to postgres` into two schemas (timed), removes the snapshot from one, then
 * recovers a store + service from each in alternating rounds, as a starting server does.
 */
import { monotonicFactory } from "ulid";
import { CustomerService } from "../src/customers/customer_service.ts";
import { CustomerProjection } from "../src/read_model/projection.ts";
import { createPool } from "../src/store/postgres/pg_connection.ts";
import { PostgresEventStore } from "../src/store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../src/store/postgres/postgres_maintenance.ts";
import { writeEventLog } from "./event_log_fixture.ts";

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
    newId: monotonicFactory(),
  });
  const report = await new PostgresMaintenance(store, service).recover();
  const ms = performance.now() - started;
  await store.close();
  return { ms, customers: projection.size, ...report };
}

/** Runs the benchmark and prints one line per round and a summary. */
export async function runPostgresStartupBench(options: PostgresStartupOptions = {}) {
  const events = options.events ?? 100_000;
  const runs = options.runs ?? 3;
  const base = options.databaseUrl ?? Deno.env.get("BENCH_DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/test";
  const admin = createPool(base, 1, () => {});
  const dataDir = await Deno.makeTempDir({ prefix: "pg-startup-bench-" });
  const schemas = ["with", "without"].map((kind) => `bench_start_${kind}_${Date.now()}`);
  const urls = schemas.map((schema) => {
    const url = new URL(base);
    url.searchParams.set("options", `-c search_path=${schema}`);
    return url.toString();
  });
  try {
    const fixture = await writeEventLog(dataDir, events);
    console.log(`pgstartup: ${fixture.events} events, ${fixture.live} live customers`);
    for (const [i, schema] of schemas.entries()) {
      await admin.query(`CREATE SCHEMA ${schema}`);
      const started = performance.now();
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", "migrate", "--to", "postgres"],
        cwd: new URL("..", import.meta.url).pathname,
        env: { DATA_DIR: dataDir, DATABASE_URL: urls[i] },
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
    await admin.query(`DELETE FROM ${schemas[1]}.snapshots`);
    const times: Record<string, number[]> = { with: [], without: [] };
    for (let round = 1; round <= runs; round++) {
      for (const [i, kind] of ["with", "without"].entries()) {
        const result = await recoverOnce(urls[i]);
        times[kind].push(result.ms);
        console.log(
          `pgstartup: round ${round} ${kind} snapshot: ${Math.round(result.ms)} ms ` +
            `(snapshot records ${result.snapshotRecords}, events replayed ${result.eventsReplayed}, ` +
            `customers ${result.customers})`,
        );
      }
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1];
    console.log(
      `pgstartup: median with snapshot ${Math.round(median(times.with))} ms, without ${
        Math.round(median(times.without))
      } ms`,
    );
  } finally {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  }
}

if (import.meta.main) await runPostgresStartupBench();
