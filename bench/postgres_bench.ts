/**
 * `deno task bench --only=postgres`: durable creates/s through the real service on PostgreSQL, one
 * replica and three, against pgbench committing an equivalent single-row INSERT, in alternating
 * rounds of one run (same client count, same duration); and the lag of one replica behind another
 * under the three-replica load. The events per commit show how much group commit shares. The HTTP
 * floor (postgres_floor_server.ts: `Deno.serve` and pgbench's INSERT per request, nothing else)
 * shows what any service over HTTP and the driver reaches on the same machine.
 */
import { createPool, type PgPool } from "../src/store/postgres/pg_connection.ts";
import { pgbenchTable, runPgbench } from "./pgbench_baseline.ts";
import { measureLag } from "./replica_lag.ts";
import {
  describeProfile,
  type Profile,
  startProfile,
  sumProfiles as sum,
} from "./postgres_profile.ts";
import { type ServerProcess, spawnServer } from "./server_process.ts";
import { mintToken, randomSecret } from "./service_token.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

const BASE = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";
const CLIENTS = 64;
const SCRIPT = decodeURIComponent(new URL("./workload.lua", import.meta.url).pathname);
const FLOOR = decodeURIComponent(new URL("./postgres_floor_server.ts", import.meta.url).pathname);
const CONFIG = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);

/** Replicas of the service on one schema of their own. */
interface Setup {
  schema: string;
  urls: string[];
  pids: number[];
  rates: number[];
  p99s: number[];
  profiles: Profile[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const round = (value: number) => Math.round(value);

/** Runs the PostgreSQL benchmark and prints its figures. */
export async function runPostgresBench(options: { quick: boolean }): Promise<void> {
  await ensureWrk();
  const rounds = options.quick ? 1 : 3;
  const seconds = options.quick ? 2 : 8;
  const stamp = Date.now();
  const admin = createPool(BASE, 1, () => {});
  const servers: ServerProcess[] = [];
  const dataDir = await Deno.makeTempDir({ prefix: "postgres-bench-" });
  const secret = randomSecret();
  const schemas = [
    `bench_pgbench_${stamp}`,
    `bench_one_${stamp}`,
    `bench_three_${stamp}`,
    `bench_floor_${stamp}`,
  ];
  let floor: Deno.ChildProcess | undefined;
  try {
    for (const schema of schemas) await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(pgbenchTable(schemas[0]));
    await admin.query(pgbenchTable(schemas[3]));
    floor = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--config",
        CONFIG,
        "--allow-net",
        "--allow-env",
        "--allow-read",
        FLOOR,
        BASE,
        schemas[3],
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const floorUrl = await firstLineUrl(floor.stdout);
    const start = async (setup: Setup): Promise<void> => {
      const url = new URL(BASE);
      url.searchParams.set("options", `-c search_path=${setup.schema}`);
      url.searchParams.set("application_name", setup.schema);
      const server = spawnServer(dataDir, [], { DATABASE_URL: url.toString(), JWT_SECRET: secret });
      servers.push(server);
      setup.urls.push((await server.waitFor("ready", 60_000)).fields.url as string);
      setup.pids.push((await server.waitFor("listening")).fields.pid as number);
    };
    const setup = (schema: string): Setup => ({
      schema,
      urls: [],
      pids: [],
      rates: [],
      p99s: [],
      profiles: [],
    });
    const one = setup(schemas[1]);
    const three = setup(schemas[2]);
    await start(one);
    for (let i = 0; i < 3; i++) await start(three);
    const token = await mintToken(secret);
    const target = new URL(BASE);
    const pgbench: number[] = [];
    const floorRates: number[] = [];
    const lags: number[] = [];
    for (let r = 0; r < rounds; r++) {
      pgbench.push(
        await runPgbench(
          {
            host: target.hostname,
            port: target.port || "5432",
            user: decodeURIComponent(target.username) || "postgres",
            database: target.pathname.slice(1),
            schema: schemas[0],
          },
          CLIENTS,
          seconds,
        ),
      );
      const bare = await runWrk({
        url: floorUrl,
        script: SCRIPT,
        args: ["post", "/", "-", token, `floor${r}`],
        seconds,
        connections: CLIENTS,
      });
      if (bare.non2xx + bare.socketErrors > 0) throw new Error(`postgres: the floor failed`);
      floorRates.push(bare.rps);
      await drive(admin, one, token, seconds, `one${r}`);
      const until = performance.now() + seconds * 1000;
      const [, measured] = await Promise.all([
        drive(admin, three, token, seconds, `three${r}`),
        measureLag(three.urls, token, until),
      ]);
      lags.push(...measured);
    }
    const perCommit = async (schema: string) => {
      const { rows: [row] } = await admin.query<{ ratio: number }>(
        `SELECT count(*)::float / greatest(count(DISTINCT xmin::text), 1) AS ratio
         FROM ${schema}.events`,
      );
      return Math.round(row.ratio * 10) / 10;
    };
    const base = median(pgbench);
    lags.sort((a, b) => a - b);
    const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
    console.log(
      `postgres: ${CLIENTS} clients, ${seconds} s × ${rounds} round(s), medians; ` +
        "synchronous_commit on, loopback",
    );
    console.log(`  pgbench, one INSERT per transaction      ${round(base)} tx/s`);
    const bare = median(floorRates);
    console.log(
      `  HTTP floor (Deno.serve + that INSERT)    ${round(bare)} req/s = ` +
        `${(bare / base).toFixed(2)} × pgbench`,
    );
    for (const [name, setup] of [["1 replica ", one], ["3 replicas", three]] as const) {
      const rate = median(setup.rates);
      console.log(
        `  service, ${name} (POST create)      ${round(rate)} creates/s = ` +
          `${(rate / base).toFixed(2)} × pgbench; p99 ${median(setup.p99s).toFixed(1)} ms; ` +
          `${await perCommit(setup.schema)} events per commit`,
      );
      for (const line of describeProfile(sum(setup.profiles))) console.log(`      ${line}`);
    }
    console.log(
      `  replica lag (create on A, read on B)     p50 ${at(0.5).toFixed(1)} ms, ` +
        `p99 ${at(0.99).toFixed(1)} ms over ${lags.length} creates (target p99 ≤ 100 ms)`,
    );
  } finally {
    if (floor !== undefined) {
      floor.kill("SIGTERM");
      await floor.status;
    }
    await Promise.all(servers.map((server) => server.stop("SIGTERM")));
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** The URL the floor server prints on its first line. */
async function firstLineUrl(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("postgres: the floor server exited before listening");
    text += value;
  }
  // Drained for the child's whole life, so that it never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })();
  return JSON.parse(text.slice(0, text.indexOf("\n"))).url;
}

/** Closed-loop creates with wrk over the setup's replicas, CLIENTS connections in all. */
async function drive(
  admin: PgPool,
  setup: Setup,
  token: string,
  seconds: number,
  tag: string,
): Promise<void> {
  const stop = await startProfile(admin, setup.schema, setup.pids, setup.urls);
  const results = await Promise.all(setup.urls.map((url, i) =>
    runWrk({
      url,
      script: SCRIPT,
      args: ["post", "/api/customers", "-", token, `${tag}r${i}`],
      seconds,
      connections: Math.floor(CLIENTS / setup.urls.length) +
        (i < CLIENTS % setup.urls.length ? 1 : 0),
    })
  ));
  const failed = results.reduce((sum, r) => sum + r.non2xx + r.socketErrors, 0);
  if (failed > 0) throw new Error(`postgres: ${failed} creates failed in round ${tag}`);
  setup.profiles.push(await stop(results.reduce((sum, r) => sum + r.requests, 0)));
  setup.rates.push(results.reduce((sum, r) => sum + r.rps, 0));
  setup.p99s.push(Math.max(...results.map((r) => r.p99Ms)));
}
