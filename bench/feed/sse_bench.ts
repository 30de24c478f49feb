/**
 * What Server-Sent Events streams cost: commit-to-delivery latency (p50/p99, from each event's
 * `time` to its arrival on the stream) with 1, 100 and 1,000 streams open while writes arrive at a
 * fixed rate, and the closed-loop write throughput with 1,000 idle streams against none, in
 * alternating rounds. The streams live in a client process of their own (bench/feed/sse_clients.ts).
 */
import { mintToken } from "../support/service_token.ts";
import { cpuSeconds } from "../support/child_processes.ts";
import { openStreams } from "./sse_client_process.ts";
import { SECRET, spawnServer } from "../support/server_process.ts";

/** The parts of the SSE benchmark, each of which may run alone. */
export const SSE_PARTS = ["latency", "idle"] as const;

/** What the SSE benchmark may be told. */
export interface SseBenchOptions {
  quick?: boolean;
  /** Writes per second while latency is measured. */
  rate?: number;
  /** The parts that run (default both). */
  parts?: readonly (typeof SSE_PARTS[number])[];
  /**
   * Rounds of the idle-stream throughput comparison (default 5, 1 with quick), and of each latency
   * run (default 1).
   */
  rounds?: number;
  /**
   * Another checkout (e.g. `git worktree add /tmp/before main`): its server runs the idle-stream
   * throughput comparison and the latency runs too, in the same alternating rounds, so a change is
   * measured before and after in one run.
   */
  beforeRoot?: string;
  /** The stream counts of the latency part (default 1, 100 and 1,000). */
  streams?: number[];
}

/** Latency figures for one stream count. */
interface LatencyRow {
  /** The checkout whose server ran (undefined: this one). */
  root?: string;
  streams: number;
  samples: number;
  p50: number;
  p99: number;
  ended: number;
  /** Server CPU seconds per second while the writes ran. */
  serverCpu: number;
  /** The stream client's CPU seconds per second. */
  clientCpu: number;
  /** This process's CPU seconds per second: mostly the writes' HTTP client. */
  writerCpu: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Runs the benchmark and prints its figures. */
export async function runSseBench(options: SseBenchOptions = {}): Promise<void> {
  const parts = options.parts ?? SSE_PARTS;
  const seconds = options.quick ? 2 : 5;
  const token = await mintToken(SECRET);
  const before = options.beforeRoot?.replace(/\/?$/, "/");
  const roots = before === undefined ? [undefined] : [before, undefined];
  if (parts.includes("latency")) {
    await latency(token, options.rate ?? 500, seconds, {
      streams: options.streams ?? [1, 100, 1000],
      // One run of each by default; more only when asked for.
      rounds: options.rounds ?? 1,
      roots,
    });
  }
  if (parts.includes("idle")) {
    const rounds = options.rounds ?? (options.quick ? 1 : 5);
    console.log(`\nServer-Sent Events: write throughput with 1,000 idle streams (target ≥ 0.9×)`);
    await idle(token, seconds, rounds, before === undefined ? [undefined] : [undefined, before]);
  }
}

/**
 * Commit-to-delivery latency with each count of streams while writes arrive at `rate`, `rounds`
 * times, each checkout in `roots` (undefined: this one) in turn within a round.
 */
async function latency(
  token: string,
  rate: number,
  seconds: number,
  runs: { streams: number[]; rounds: number; roots: (string | undefined)[] },
): Promise<void> {
  const rows: LatencyRow[] = [];
  for (let round = 0; round < runs.rounds; round++) {
    for (const streams of runs.streams) {
      for (const root of runs.roots) {
        rows.push(await latencyRun(token, streams, rate, seconds, root));
      }
    }
  }
  console.log(`\nServer-Sent Events: ${rate} writes/s for ${seconds} s (target p99 ≤ 50 ms)`);
  for (const row of rows) {
    console.log(
      `  ${runs.roots.length > 1 ? `${row.root ?? "this checkout"}: ` : ""}${row.streams} ` +
        `streams: delivery p50 ${row.p50} ms, p99 ${row.p99} ms (CPU s/s: server ${
          row.serverCpu.toFixed(2)
        }, stream client ${row.clientCpu.toFixed(2)}, writer ${
          row.writerCpu.toFixed(2)
        }; ${row.samples} frames sampled${row.ended > 0 ? `, ${row.ended} streams ended` : ""})`,
    );
  }
}

/** One latency run: `streams` streams on a fresh server of `root` while writes arrive. */
function latencyRun(
  token: string,
  streams: number,
  rate: number,
  seconds: number,
  root: string | undefined,
): Promise<LatencyRow> {
  return withServer(async (url, cpu) => {
    const clients = await openStreams(url, token, streams, "");
    const cpuBefore = await cpu();
    const clientBefore = await cpuSeconds(clients.pid);
    const writerBefore = await cpuSeconds(Deno.pid);
    await paced(url, token, rate, seconds);
    const serverCpu = (await cpu() - cpuBefore) / seconds;
    const clientCpu = (await cpuSeconds(clients.pid) - clientBefore) / seconds;
    const writerCpu = (await cpuSeconds(Deno.pid) - writerBefore) / seconds;
    // Let the last frames arrive.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { latencies, ended } = await clients.finish();
    const sorted = latencies.sort((a, b) => a - b);
    return {
      root,
      streams,
      samples: sorted.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      ended,
      serverCpu,
      clientCpu,
      writerCpu,
    };
  }, root);
}

/**
 * Idle: streams that follow only deletes while the writes are creates, against no streams, in
 * alternating rounds, for each checkout in `roots` (undefined: this one). The server's CPU time per
 * write is reported too: unlike the rate, it barely moves with the machine's other load.
 */
async function idle(
  token: string,
  seconds: number,
  rounds: number,
  roots: (string | undefined)[],
): Promise<void> {
  const runs = roots.map(() => ({ none: [] as Throughput[], idle: [] as Throughput[] }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, root] of roots.entries()) {
      runs[i].none.push(
        await withServer((url, cpu) => measured(cpu, () => closedLoop(url, token, seconds)), root),
      );
      runs[i].idle.push(
        await withServer(async (url, cpu) => {
          const clients = await openStreams(url, token, 1000, "&type=customer.deleted");
          // Let every stream finish its first read and settle at the head: idle from then on.
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const result = await measured(cpu, () => closedLoop(url, token, seconds));
          await clients.finish();
          return result;
        }, root),
      );
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1];
  const perSecond = (runs: Throughput[]) => median(runs.map((run) => run.writes / seconds));
  const cpuPerWrite = (runs: Throughput[]) => median(runs.map((run) => run.cpu / run.writes * 1e6));
  for (const [i, root] of roots.entries()) {
    const { none, idle } = runs[i];
    if (roots.length > 1) console.log(`  ${root ?? "this checkout"}:`);
    console.log(
      `  write throughput (16 closed-loop clients): no streams ${perSecond(none).toFixed(0)}/s, ` +
        `1,000 idle streams ${perSecond(idle).toFixed(0)}/s (${
          (perSecond(idle) / perSecond(none)).toFixed(2)
        }×, ` +
        `target ≥ 0.9×; rounds ${none.map((r) => Math.round(r.writes / seconds))} vs ${
          idle.map((r) => Math.round(r.writes / seconds))
        })`,
    );
    console.log(
      `  server CPU per write: no streams ${cpuPerWrite(none).toFixed(0)} µs, 1,000 idle streams ` +
        `${cpuPerWrite(idle).toFixed(0)} µs (${
          (cpuPerWrite(idle) / cpuPerWrite(none)).toFixed(2)
        }×)`,
    );
  }
}

/** Writes done in a closed loop and the server CPU seconds they took. */
interface Throughput {
  writes: number;
  cpu: number;
}

async function measured(
  cpu: () => Promise<number>,
  body: () => Promise<number>,
): Promise<Throughput> {
  const before = await cpu();
  const writes = await body();
  return { writes, cpu: await cpu() - before };
}

async function withServer<T>(
  body: (url: string, cpu: () => Promise<number>) => Promise<T>,
  root?: string,
): Promise<T> {
  const dataDir = await Deno.makeTempDir({ prefix: "sse-bench-" });
  const server = spawnServer(dataDir, [], { LOG_LEVEL: "warn" }, root);
  try {
    const url = (await server.waitFor("ready")).fields.url as string;
    const pid = (await server.waitFor("listening")).fields.pid as number;
    return await body(url, () => cpuSeconds(pid));
  } finally {
    await server.stop("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
}

let n = 0;
function create(url: string, token: string): Promise<void> {
  n++;
  return fetch(`${url}/api/customers`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench ${n}`, email: `sse-${n}-${Date.now()}@example.com` }),
  }).then((res) => res.body?.cancel());
}

/** Writes at `rate` per second for `seconds`, each without waiting for the previous. */
async function paced(url: string, token: string, rate: number, seconds: number): Promise<void> {
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(create(url, token));
  }
  await Promise.all(pending);
}

/** Writes that 16 clients, each waiting for its answer, complete in `seconds`. */
async function closedLoop(url: string, token: string, seconds: number): Promise<number> {
  let done = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (performance.now() < end) await create(url, token).then(() => done++);
  }));
  return done;
}
