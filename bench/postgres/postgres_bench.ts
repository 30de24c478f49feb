/**
 * `deno task bench --only=postgres`: durable writes through the real service on PostgreSQL against
 * pgbench committing an equivalent single-row INSERT, in alternating rounds of one run (same client
 * count, same duration): creates on one replica and on three, updates (PUT) on one, creates on one
 * replica from a third of the clients (what each of three gets), creates on three services that
 * share only the machine (each on a schema of its own: no log to share or follow, the most three
 * processes get from its cores), the lag of one replica behind another under the three-replica
 * load, and creates with no webhook endpoint against creates with 10 (postgres_webhooks.ts). The
 * servers run only during their own part of a round, so that pgbench gets its connections on a
 * shared database. A profile of each setup (postgres_profile.ts) shows where a write's time goes.
 * The HTTP floor (postgres_floor_server.ts: `Deno.serve` and pgbench's INSERT per request, nothing
 * else) shows what any service over HTTP and the driver reaches on the same machine; the grouped
 * floors (postgres_grouped_floor.ts: the least a durable create needs, group-committed as one
 * multi-row INSERT per group, into pgbench's table, into one with the events table's indexes, and
 * with a customer row beside) show what a service with the group commit could reach.
 */
import { SignJWT } from "jose";
import { createPool, type PgPool } from "../../src/store/postgres/pg_connection.ts";
import { pgbenchTable, runPgbench } from "./pgbench_baseline.ts";
import {
  describeProfile,
  type Profile,
  startProfile,
  sumProfiles as sum,
  walBytes,
} from "./postgres_profile.ts";
import { type WebhookRound, webhookRound } from "./postgres_webhooks.ts";
import { measureLag } from "./replica_lag.ts";
import { type ServerProcess, spawnServer } from "../support/server_process.ts";
import { cpuSeconds, statTicks } from "../support/child_processes.ts";
import { randomSecret } from "../support/service_token.ts";
import { ensureWrk, runWrk, type WrkResult } from "../support/wrk.ts";
import { quietDatabase } from "./quiet_database.ts";

/** The PostgreSQL server the benchmark uses, in schemas of its own that it drops after. */
export const DATABASE_URL = Deno.env.get("BENCH_DATABASE_URL") ??
  "postgres://postgres@127.0.0.1:5432/test";
const BASE = DATABASE_URL;
const CLIENTS = 64;
/** The clients each of three replicas gets (the first of them one more). */
const SHARE = Math.ceil(CLIENTS / 3);
const ENDPOINTS = 10;
const PACED_RATE = 500;
const SCRIPT = decodeURIComponent(new URL("../support/workload.lua", import.meta.url).pathname);
const FLOOR = decodeURIComponent(new URL("./postgres_floor_server.ts", import.meta.url).pathname);
const GROUPED = decodeURIComponent(
  new URL("./postgres_grouped_floor.ts", import.meta.url).pathname,
);
/** The grouped floor's tables, as its TABLE argument names them, and their rows' labels. */
const GROUPED_TABLES = [
  ["plain", "grouped floor, pgbench's table  "],
  ["events", "grouped floor, events' indexes  "],
  ["customers", "grouped floor, + customer rows  "],
] as const;

/** Parts of the benchmark besides pgbench, which every round runs. */
export type PostgresPart = "floors" | "one" | "three" | "webhooks";
export const POSTGRES_PARTS: readonly PostgresPart[] = ["floors", "one", "three", "webhooks"];

/** What a run measures. */
export interface PostgresBenchOptions {
  quick: boolean;
  parts?: PostgresPart[];
  rounds?: number;
  seconds?: number;
  /** Another checkout whose service also runs the 1-replica creates, in the same rounds. */
  beforeRoot?: string;
}

/** A floor server's round: its rate, p99, and CPU per request (its own, its backends'). */
interface FloorRound {
  rps: number;
  p99: number;
  serverCpu: number;
  backendCpu: number;
}
const CONFIG = decodeURIComponent(new URL("../../deno.json", import.meta.url).pathname);

/** Replicas of the service on one schema of their own, and what their rounds measured. */
interface Setup {
  schema: string;
  replicas: number;
  /** Each replica on a schema of its own (`<schema>_<i>`): services sharing only the machine. */
  apart?: boolean;
  /** The checkout whose service runs (this one when undefined). */
  root?: string;
  rates: number[];
  p99s: number[];
  profiles: Profile[];
}

/** Running replicas of a setup. */
interface Running {
  urls: string[];
  pids: number[];
  servers: ServerProcess[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const round = (value: number) => Math.round(value);
const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/** Runs the PostgreSQL benchmark and prints its figures. */
export async function runPostgresBench(options: PostgresBenchOptions): Promise<void> {
  await ensureWrk();
  const rounds = options.rounds ?? (options.quick ? 1 : 3);
  const seconds = options.seconds ?? (options.quick ? 3 : 8);
  const parts = new Set(options.parts ?? POSTGRES_PARTS);
  const stamp = Date.now();
  const admin = createPool(BASE, 1, () => {});
  const dataDir = await Deno.makeTempDir({ prefix: "postgres-bench-" });
  const secret = randomSecret();
  const setup = (name: string, replicas: number, root?: string): Setup => ({
    schema: `bench_${name}_${stamp}`,
    replicas,
    root,
    rates: [],
    p99s: [],
    profiles: [],
  });
  const one = setup("one", 1);
  const updates = setup("one", 1);
  // One replica with the share of the clients each of three gets: what splitting the load costs.
  const share = setup("one", 1);
  const three = setup("three", 3);
  const apart: Setup = { ...setup("apart", 3), apart: true };
  const hooks = setup("hooks", 1);
  const before = options.beforeRoot === undefined
    ? undefined
    : setup("before", 1, options.beforeRoot.replace(/\/?$/, "/"));
  const pgbenchSchema = `bench_pgbench_${stamp}`;
  const floorSchema = `bench_floor_${stamp}`;
  const schemas = [pgbenchSchema, floorSchema, one.schema, three.schema, hooks.schema];
  schemas.push(...schemasOf(apart));
  if (before !== undefined) schemas.push(before.schema);
  const running: Running[] = [];
  const start = async (setup: Setup, env: Record<string, string> = {}): Promise<Running> => {
    const replicas: Running = { urls: [], pids: [], servers: [] };
    running.push(replicas);
    for (const schema of schemasOf(setup)) {
      const url = new URL(BASE);
      url.searchParams.set("options", `-c search_path=${schema}`);
      url.searchParams.set("application_name", setup.schema);
      const server = spawnServer(dataDir, [], {
        DATABASE_URL: url.toString(),
        JWT_SECRET: secret,
        ...env,
      }, setup.root);
      replicas.servers.push(server);
      replicas.urls.push((await server.waitFor("ready", 60_000)).fields.url as string);
      replicas.pids.push((await server.waitFor("listening")).fields.pid as number);
    }
    return replicas;
  };
  const stop = async (replicas: Running) => {
    running.splice(running.indexOf(replicas), 1);
    await Promise.all(replicas.servers.map((server) => server.stop("SIGTERM")));
  };
  try {
    for (const schema of schemas) await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(pgbenchTable(pgbenchSchema));
    await admin.query(pgbenchTable(floorSchema));
    const token = await new SignJWT({ scope: "customers:read customers:write webhooks:manage" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject("bench").setIssuedAt()
      .setExpirationTime("24h").sign(new TextEncoder().encode(secret));
    const target = new URL(BASE);
    const pgbench: number[] = [];
    /** PostgreSQL-backend CPU seconds and bytes of WAL per pgbench transaction. */
    const pgbenchCpu: number[] = [];
    const pgbenchWal: number[] = [];
    const floors = new Map<string, FloorRound[]>();
    const lags: number[] = [];
    const webhookRounds: WebhookRound[] = [];
    const idsFile = await Deno.makeTempFile({ dir: dataDir, suffix: ".ids" });
    const floorRun = async (name: string, args: string[], r: number) => {
      const measured = await floorRound(admin, args, token, secret, seconds, r);
      floors.set(name, [...floors.get(name) ?? [], measured]);
    };
    for (let r = 0; r < rounds; r++) {
      const [tps, rates] = await Promise.all([
        runPgbench(
          {
            host: target.hostname,
            port: target.port || "5432",
            user: decodeURIComponent(target.username) || "postgres",
            database: target.pathname.slice(1),
            schema: pgbenchSchema,
          },
          CLIENTS,
          seconds,
        ),
        backendCpuRate(admin, "pgbench", seconds),
      ]);
      pgbench.push(tps);
      pgbenchCpu.push(rates.cpu / tps);
      pgbenchWal.push(rates.wal / tps);
      await quietDatabase(admin, pgbenchSchema);
      if (parts.has("floors")) {
        await floorRun("HTTP floor (Deno.serve + that INSERT)", [FLOOR, floorSchema], r);
        for (const [table, label] of GROUPED_TABLES) {
          await floorRun(label, [GROUPED, floorSchema, table], r);
        }
        await quietDatabase(admin, floorSchema);
      }
      if (before !== undefined) {
        const older = await start(before);
        await warm(older.urls[0], token, `warmb${r}`);
        await drive(admin, before, older, token, seconds, `before${r}`);
        await stop(older);
        await quietDatabase(admin, before.schema);
      }
      if (parts.has("one")) {
        const single = await start(one);
        await warm(single.urls[0], token, `warm${r}`);
        await drive(admin, one, single, token, seconds, `one${r}`);
        const { rows } = await admin.query<{ customer_id: string; email: string }>(
          `SELECT customer_id, email FROM ${one.schema}.customers WHERE email IS NOT NULL LIMIT 5000`,
        );
        await Deno.writeTextFile(
          idsFile,
          rows.map((r) => `${r.customer_id} ${r.email}\n`).join(""),
        );
        await drive(admin, updates, single, token, seconds, `put${r}`, ["put", idsFile]);
        await drive(admin, share, single, token, seconds, `share${r}`, undefined, SHARE);
        await stop(single);
        await quietDatabase(admin, one.schema);
      }
      if (parts.has("three")) {
        const replicas = await start(three);
        await Promise.all(replicas.urls.map((url, i) => warm(url, token, `warm${r}r${i}`)));
        const until = performance.now() + seconds * 1000;
        const [, measured] = await Promise.all([
          drive(admin, three, replicas, token, seconds, `three${r}`),
          measureLag(replicas.urls, token, until),
        ]);
        lags.push(...measured);
        await stop(replicas);
        await quietDatabase(admin, three.schema);
        const services = await start(apart);
        await Promise.all(services.urls.map((url, i) => warm(url, token, `warm${r}a${i}`)));
        await drive(admin, apart, services, token, seconds, `apart${r}`);
        await stop(services);
        for (const schema of schemasOf(apart)) await quietDatabase(admin, schema);
      }
      if (parts.has("webhooks")) {
        const hooked = await start(hooks, { WEBHOOK_ALLOW_PRIVATE: "1" });
        await warm(hooked.urls[0], token, `warm${r}`);
        webhookRounds.push(
          await webhookRound(
            {
              url: hooked.urls[0],
              token,
              endpoints: ENDPOINTS,
              rate: PACED_RATE,
              seconds,
              burst: () => burst(hooked.urls[0], token, seconds, `hook${r}${Math.random()}`),
            },
            r,
          ),
        );
        await stop(hooked);
        await quietDatabase(admin, hooks.schema);
      }
    }
    const base = median(pgbench);
    // The server's own setting: with it off, tables the runs churn keep their dead rows.
    const { rows: [{ autovacuum }] } = await admin.query<{ autovacuum: string }>("SHOW autovacuum");
    console.log(
      `postgres: ${CLIENTS} clients, ${seconds} s × ${rounds} round(s), medians; ` +
        `synchronous_commit on, autovacuum ${autovacuum}, loopback`,
    );
    console.log(
      `  pgbench, one INSERT per transaction      ${round(base)} tx/s; ` +
        `PostgreSQL backends ${round(median(pgbenchCpu) * 1e6)} µs CPU ` +
        (pgbenchWal.every(Number.isFinite)
          ? `and ${round(median(pgbenchWal))} bytes of WAL `
          : "") +
        "per transaction",
    );
    for (const [name, measured] of floors) {
      const rate = median(measured.map((m) => m.rps));
      const us = (pick: (m: FloorRound) => number) => round(median(measured.map(pick)) * 1e6);
      console.log(
        `  ${name.padEnd(39)}  ${round(rate)} req/s = ${(rate / base).toFixed(2)} × pgbench` +
          `; p99 ${median(measured.map((m) => m.p99)).toFixed(1)} ms; CPU per create: server ` +
          `${us((m) => m.serverCpu)} µs, PostgreSQL backends ${us((m) => m.backendCpu)} µs`,
      );
    }
    const rows: [string, Setup][] = [
      ["1 replica  (POST create)", one],
      ["1 replica  (PUT update)", updates],
      [`1 replica, ${SHARE} clients`, share],
      ["3 replicas (POST create)", three],
      ["3 services, own schemas", apart],
    ];
    if (before !== undefined) rows.unshift(["1 replica, before (POST)", before]);
    for (const [name, setup] of rows.filter(([, setup]) => setup.rates.length > 0)) {
      const rate = median(setup.rates);
      const label = name.padEnd(24);
      console.log(
        `  service, ${label}  ${round(rate)} writes/s = ${(rate / base).toFixed(2)} × pgbench` +
          `; p99 ${median(setup.p99s).toFixed(1)} ms`,
      );
      for (const line of describeProfile(sum(setup.profiles))) console.log(`      ${line}`);
    }
    const ratio = (a: Setup, b: Setup) => median(a.rates.map((rate, i) => rate / b.rates[i]));
    if (before !== undefined && parts.has("one")) {
      console.log(`  1 replica, this checkout ÷ before: ${ratio(one, before).toFixed(2)}×`);
    }
    if (parts.has("one")) {
      console.log(
        (parts.has("three")
          ? `  3 replicas ÷ 1 replica: ${ratio(three, one).toFixed(2)}× ` +
            "(target ≥ 1.0); "
          : "  ") +
          `PUT ÷ POST on 1 replica: ${ratio(updates, one).toFixed(2)}× (target ≥ 0.8); ` +
          `1 replica ÷ pgbench ${
            (median(one.rates) / base).toFixed(2)
          }× (target ≥ 1.0, p99 ≤ 50 ms)`,
      );
    }
    if (parts.has("three")) {
      console.log(
        `  3 replicas ÷ 3 services on schemas of their own: ${ratio(three, apart).toFixed(2)}×` +
          (parts.has("one")
            ? `; those 3 services ÷ 1 replica: ${ratio(apart, one).toFixed(2)}× ` +
              "(what three processes get from the machine's cores)"
            : ""),
      );
      lags.sort((a, b) => a - b);
      console.log(
        `  replica lag (create on A, read on B)     p50 ${at(lags, 0.5).toFixed(1)} ms, ` +
          `p99 ${at(lags, 0.99).toFixed(1)} ms over ${lags.length} creates (target p99 ≤ 100 ms)`,
      );
    }
    if (parts.has("webhooks")) printWebhooks(webhookRounds, seconds);
  } finally {
    await Promise.all(running.map((replicas) => stop(replicas)));
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  }
}

function printWebhooks(rounds: WebhookRound[], seconds: number): void {
  const ratios = rounds.map((r) => r.on / r.off);
  const burst = rounds.flatMap((r) => r.burst).sort((a, b) => a - b);
  const paced = rounds.flatMap((r) => r.paced).sort((a, b) => a - b);
  console.log(
    `  webhooks, 1 replica, ${ENDPOINTS} endpoints: creates with ÷ without them ` +
      `${median(ratios).toFixed(2)}× (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}; ` +
      `target ≥ 0.85); deliveries of those bursts p50 ${at(burst, 0.5)} ms, p99 ` +
      `${at(burst, 0.99)} ms`,
  );
  console.log(
    `      ${PACED_RATE} creates/s for ${seconds} s: commit-to-delivery p50 ${
      at(paced, 0.5)
    } ms, ` +
      `p99 ${at(paced, 0.99)} ms over ${paced.length} deliveries (target ≤ 100 ms; rounds: ${
        rounds.map((r) => at([...r.paced].sort((a, b) => a - b), 0.99)).join(", ")
      }); ` +
      (rounds.every((r) => r.complete) ? "every event to every endpoint, in order" : "INCOMPLETE"),
  );
  for (const [i, r] of rounds.entries()) {
    if (!r.complete) {
      console.log(
        `      round ${i + 1} incomplete (of ${seconds * PACED_RATE} events each): ${r.missing}`,
      );
    }
  }
}

/**
 * CPU seconds per second the backends of `application` used, and bytes of WAL per second the
 * server wrote, from 1 s into a run of `seconds` to half a second before its end (the backends
 * exit with their connections).
 */
async function backendCpuRate(admin: PgPool, application: string, seconds: number) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const { rows } = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
    [application],
  );
  // One `cat` for all of them, so that sampling costs pgbench little.
  const sample = async () => {
    const { stdout } = await new Deno.Command("cat", {
      args: rows.map(({ pid }) => `/proc/${pid}/stat`),
      stdout: "piped",
      stderr: "null",
    }).output();
    // A backend gone meanwhile fails `cat`, which still prints the others.
    let ticks = 0;
    for (const line of new TextDecoder().decode(stdout).split("\n").filter(Boolean)) {
      ticks += statTicks(line);
    }
    return { sum: ticks / 100, wal: await walBytes(admin), at: performance.now() };
  };
  const first = await sample();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0.1, seconds - 1.5) * 1000));
  const last = await sample();
  const elapsed = (last.at - first.at) / 1000;
  return { cpu: (last.sum - first.sum) / elapsed, wal: (last.wal - first.wal) / elapsed };
}

/**
 * One round of a floor server (`args`: its script and arguments after the database URL): started
 * for it, driven, profiled and stopped.
 */
async function floorRound(
  admin: PgPool,
  [script, schema, ...rest]: string[],
  token: string,
  secret: string,
  seconds: number,
  r: number,
): Promise<FloorRound> {
  const application = `floor_${r}_${Math.random().toString(36).slice(2, 8)}`;
  const url = new URL(BASE);
  url.searchParams.set("application_name", application);
  const floor = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      CONFIG,
      "--allow-net",
      "--allow-env",
      "--allow-read",
      script,
      url.toString(),
      schema,
      ...rest,
    ],
    env: { JWT_SECRET: secret },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const address = await firstLineUrl(floor.stdout);
    const backends = async () => {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1",
        [`${application}%`],
      );
      let sum = 0;
      for (const { pid } of rows) sum += await cpuSeconds(pid);
      return sum;
    };
    await runWrk({
      url: address,
      script: SCRIPT,
      args: ["post", "/api/customers", "-", token, `floorwarm${r}${rest.join("")}`],
      seconds: 1,
      connections: 16,
    });
    const cpu = { server: await cpuSeconds(floor.pid), backends: await backends() };
    const bare = await runWrk({
      url: address,
      script: SCRIPT,
      args: ["post", "/api/customers", "-", token, `floor${r}${rest.join("")}`],
      seconds,
      connections: CLIENTS,
    });
    const server = (await cpuSeconds(floor.pid)) - cpu.server;
    const backend = (await backends()) - cpu.backends;
    if (bare.non2xx + bare.socketErrors > 0) throw new Error(`postgres: the floor failed`);
    return {
      rps: bare.rps,
      p99: bare.p99Ms,
      serverCpu: server / bare.requests,
      backendCpu: backend / bare.requests,
    };
  } finally {
    floor.kill("SIGTERM");
    await floor.status;
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

/** The schemas a setup's replicas run on: one for all, or one each when apart. */
function schemasOf({ schema, replicas, apart }: Setup): string[] {
  return Array.from({ length: replicas }, (_, i) => apart ? `${schema}_${i}` : schema);
}

/** A second of creates, not counted: a fresh process runs partly unoptimised at first. */
async function warm(url: string, token: string, tag: string): Promise<void> {
  await burst(url, token, 1, tag, 16);
}

/** Closed-loop creates on one replica; throws if any failed. */
async function burst(
  url: string,
  token: string,
  seconds: number,
  tag: string,
  connections = CLIENTS,
): Promise<WrkResult> {
  const result = await runWrk({
    url,
    script: SCRIPT,
    args: ["post", "/api/customers", "-", token, tag],
    seconds,
    connections,
  });
  if (result.non2xx + result.socketErrors > 0) throw new Error(`postgres: creates failed (${tag})`);
  return result;
}

/** Closed-loop writes with wrk over the replicas, CLIENTS connections in all, profiled. */
async function drive(
  admin: PgPool,
  setup: Setup,
  replicas: Running,
  token: string,
  seconds: number,
  tag: string,
  [mode, ids] = ["post", "-"],
  clients = CLIENTS,
): Promise<void> {
  const { urls, pids } = replicas;
  const stop = await startProfile(admin, setup.schema, pids, urls);
  const results = await Promise.all(urls.map((url, i) =>
    runWrk({
      url,
      script: SCRIPT,
      args: [mode, "/api/customers" + (mode === "put" ? "/" : ""), ids, token, `${tag}r${i}`],
      seconds,
      connections: Math.floor(clients / urls.length) + (i < clients % urls.length ? 1 : 0),
    })
  ));
  const failed = results.reduce((sum, r) => sum + r.non2xx + r.socketErrors, 0);
  if (failed > 0) throw new Error(`postgres: ${failed} writes failed in round ${tag}`);
  setup.profiles.push(await stop(results.reduce((sum, r) => sum + r.requests, 0)));
  setup.rates.push(results.reduce((sum, r) => sum + r.rps, 0));
  setup.p99s.push(Math.max(...results.map((r) => r.p99Ms)));
}
