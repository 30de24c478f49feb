/**
 * Webhook delivery under load, 10 endpoints on a loopback receiver in a process of its own, all
 * against one server (warmed up first), so that rounds differ only by the endpoints:
 * - write throughput of 16 closed-loop clients with no endpoint ("off") and with 10 ("on"),
 *   alternating in pairs (off then on, on then off, ...: a load that drifts meanwhile cancels
 *   out); "on" registers 10 fresh endpoints (they start at the head), and after the burst the
 *   backlog is watched until every delivery arrived, the receiver checks that each endpoint got
 *   every event of the burst once, in seq order, and the endpoints are deleted. Each pair gives
 *   one ratio; the figure is their median;
 * - commit-to-delivery latency (p50/p99, from each event's `time` to its arrival) with writes
 *   paced at 500/s, on a second server and receiver warmed up by a second of it, in several runs
 *   (fresh endpoints each): each run's p99 and their median.
 * `cpuProfDir` adds one profiled burst and one profiled paced run and prints where time went.
 */
import { SignJWT } from "jose";
import { SECRET } from "../support/server_process.ts";
import { procText } from "../support/child_processes.ts";
import { printRequestProfile } from "../http/http_profile.ts";
import {
  closedLoop,
  drain,
  type Drained,
  heldSeconds,
  paced,
  type ReceiverReport,
  register,
  unregister,
  withReceiver,
  withServer,
} from "./webhook_load.ts";

/** What the webhook benchmark may be told. */
export interface WebhookBenchOptions {
  quick?: boolean;
  endpoints?: number;
  rate?: number;
  /** Off/on pairs of the throughput measure (default 8, 1 with `quick`). */
  rounds?: number;
  /** Paced runs of the latency measure (default 3, 1 with `quick`). */
  latencyRuns?: number;
  /** Where to write the profiled runs' .cpuprofile files. */
  cpuProfDir?: string;
}

const CLIENTS = 16;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One measured round: its throughput and, with endpoints, how the backlog went. */
interface Burst {
  rate: number;
  writes: number;
  drained?: Drained;
  prefix?: string;
  /** Seconds attempts waited at the delivery gate (the API busy), summed over endpoints. */
  held?: number;
}

/** Runs the benchmark and prints its figures. */
export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<void> {
  const endpoints = options.endpoints ?? 10;
  const rate = options.rate ?? 500;
  const seconds = options.quick ? 2 : 3;
  const pacedSeconds = options.quick ? 2 : 5;
  const rounds = options.rounds ?? (options.quick ? 1 : 8);
  const latencyRuns = options.latencyRuns ?? (options.quick ? 1 : 3);
  const token = await new SignJWT({ scope: "customers:read customers:write webhooks:manage" })
    .setProtectedHeader({ alg: "HS256" }).setSubject("bench").setIssuedAt().setExpirationTime("1h")
    .sign(new TextEncoder().encode(SECRET));
  console.log(
    `\nWebhooks: ${endpoints} endpoints on one loopback receiver process, one server ` +
      `(load average ${await loadAverage()})`,
  );
  const ratios: number[] = [];
  const pairs: { off: Burst; on: Burst }[] = [];
  const pacedRuns: { prefix: string; drained: Drained; held: number }[] = [];
  const report = await withReceiver((port) =>
    withServer(token, 0, port, [], async (url) => {
      // Warm-up, not counted: the first burst of a fresh process runs partly unoptimised.
      await closedLoop(url, token, CLIENTS, 1);
      const off = async (): Promise<Burst> => await closedLoop(url, token, CLIENTS, seconds);
      const on = async (round: number): Promise<Burst> => {
        const prefix = `r${round}`;
        const ids = await register(url, token, endpoints, port, `${prefix}-`);
        const heldBefore = await heldSeconds(url);
        const burst = await closedLoop(url, token, CLIENTS, seconds);
        const drained = await drain(url);
        const held = await heldSeconds(url) - heldBefore;
        await unregister(url, token, ids);
        return { ...burst, drained, prefix, held };
      };
      for (let round = 1; round <= rounds; round++) {
        // Off first in odd rounds, on first in even ones.
        let offBurst: Burst, onBurst: Burst;
        if (round % 2 === 1) offBurst = await off(), onBurst = await on(round);
        else onBurst = await on(round), offBurst = await off();
        ratios.push(onBurst.rate / offBurst.rate);
        pairs.push({ off: offBurst, on: onBurst });
      }
    })
  ).then(async (throughput) =>
    // The latency runs get a server and receiver of their own: after the bursts the log holds
    // hundreds of thousands of events, and the first paced run after them was the slowest in
    // every run of the benchmark.
    mergeReports(
      throughput,
      await withReceiver((port) =>
        withServer(token, 0, port, [], async (url) => {
          // Warm-up, not counted: paced writes and their deliveries for a second.
          const warm = await register(url, token, endpoints, port, "w-");
          await paced(url, token, rate, 1);
          await drain(url);
          await unregister(url, token, warm);
          for (let run = 1; run <= latencyRuns; run++) {
            const prefix = `p${run}`;
            const ids = await register(url, token, endpoints, port, `${prefix}-`);
            const heldBefore = await heldSeconds(url);
            await paced(url, token, rate, pacedSeconds);
            const drained = await drain(url);
            pacedRuns.push({ prefix, drained, held: await heldSeconds(url) - heldBefore });
            await unregister(url, token, ids);
          }
        })
      ),
    )
  );
  for (const [i, { off, on }] of pairs.entries()) {
    const line = roundLine(i + 1, off, on);
    console.log(`${line}; ${completeness(report, on.prefix!, endpoints, on.writes)}`);
  }
  const sortedRatios = [...ratios].sort((a, b) => a - b);
  console.log(
    `  write throughput on ÷ off, median of ${rounds} pairs: ${median(ratios).toFixed(2)}× ` +
      `(pairs from ${sortedRatios[0].toFixed(2)}× to ${sortedRatios.at(-1)!.toFixed(2)}×)`,
  );
  const p99s: number[] = [];
  for (const { prefix, drained, held } of pacedRuns) {
    const sorted = (report.latencies[`/${prefix}`] ?? []).sort((a, b) => a - b);
    p99s.push(percentile(sorted, 0.99));
    console.log(
      `  ${rate} writes/s for ${pacedSeconds} s (${prefix}): commit-to-delivery p50 ` +
        `${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms, max ${sorted.at(-1)} ` +
        `ms; largest backlog ${drained.maxBacklog}; attempts waited ${
          held.toFixed(1)
        } s at the gate (summed over endpoints); ` +
        completeness(report, prefix, endpoints, rate * pacedSeconds),
    );
  }
  console.log(`  commit-to-delivery p99, median of ${latencyRuns} runs: ${median(p99s)} ms`);
  console.log(`  load average at the end: ${await loadAverage()}`);
  if (options.cpuProfDir !== undefined) {
    await profiled(options.cpuProfDir, token, endpoints, rate, pacedSeconds);
  }
}

/** Two receivers' reports as one (their paths and groups differ). */
function mergeReports(a: ReceiverReport, b: ReceiverReport): ReceiverReport {
  return { latencies: { ...a.latencies, ...b.latencies }, paths: { ...a.paths, ...b.paths } };
}

/** A round's line: both throughputs, their ratio, and how the backlog of the "on" burst went. */
function roundLine(round: number, off: Burst, on: Burst): string {
  const drained = on.drained!;
  return `  round ${round} (${round % 2 === 1 ? "off, on" : "on, off"}): ${CLIENTS} clients: off ` +
    `${off.rate.toFixed(0)}/s, on ${on.rate.toFixed(0)}/s (${(on.rate / off.rate).toFixed(2)}×, ` +
    `on ${on.writes} writes); attempts waited ${
      on.held!.toFixed(1)
    } s at the gate, largest backlog ` +
    `${drained.maxBacklog} events, caught up ` +
    `${(drained.catchUpMs / 1000).toFixed(1)} s after the burst`;
}

/** "every delivery arrived, in order" or what did not, for the endpoints at `/hook/<prefix>-*`. */
function completeness(
  report: ReceiverReport,
  prefix: string,
  endpoints: number,
  writes: number,
): string {
  const paths = Object.entries(report.paths).filter(([path]) => path.startsWith(`/${prefix}-`))
    .map(([, p]) => p);
  const missing = paths.length < endpoints || paths.some((p) => p.distinct !== writes);
  const disorder = paths.reduce((sum, p) => sum + p.outOfOrder, 0);
  const total = paths.reduce((sum, p) => sum + p.count, 0);
  if (!missing && disorder === 0) {
    return `${total} deliveries: every event to every endpoint, in seq order` +
      (total > endpoints * writes ? ` (${total - endpoints * writes} repeated)` : "");
  }
  return `INCOMPLETE: ${JSON.stringify(paths)} of ${writes} writes`;
}

/** One burst and one paced run of the service under --cpu-prof, each summarised. */
async function profiled(
  dir: string,
  token: string,
  endpoints: number,
  rate: number,
  seconds: number,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const flags = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
  for (const kind of ["burst", "paced"] as const) {
    const before = new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
    await withReceiver((port) =>
      withServer(token, endpoints, port, flags, async (url) => {
        if (kind === "burst") await closedLoop(url, token, CLIENTS, seconds);
        else await paced(url, token, rate, seconds);
        await drain(url);
      })
    );
    const written = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !before.has(n));
    console.log(
      `\ncpu profile of the service, ${kind} with ${endpoints} endpoints, until drained:`,
    );
    for (const name of written) await printRequestProfile(`${dir}/${name}`);
  }
}

/** The 1-minute load average, from `cat` (Deno reads /proc only with --allow-all). */
async function loadAverage(): Promise<string> {
  return (await procText("/proc/loadavg"))?.split(" ")[0] ?? "?";
}
