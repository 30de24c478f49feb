/**
 * Webhook delivery under load, 10 endpoints on a loopback receiver in a process of its own:
 * - write throughput of 16 closed-loop clients with no endpoint and with 10, in alternating
 *   rounds; after each burst with endpoints, the backlog is watched until every delivery arrived
 *   and the receiver checks that each endpoint got every event once, in seq order;
 * - commit-to-delivery latency (p50/p99, from each event's `time` to its arrival) with writes
 *   paced at 500/s.
 * `cpuProfDir` adds one profiled burst and one profiled paced run and prints where time went.
 */
import { SignJWT } from "jose";
import { SECRET } from "./server_process.ts";
import { printRequestProfile } from "./http_profile.ts";
import {
  closedLoop,
  drain,
  type Drained,
  paced,
  type ReceiverReport,
  withReceiver,
  withServer,
} from "./webhook_load.ts";

/** What the webhook benchmark may be told. */
export interface WebhookBenchOptions {
  quick?: boolean;
  endpoints?: number;
  rate?: number;
  rounds?: number;
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

/** Runs the benchmark and prints its figures. */
export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<void> {
  const endpoints = options.endpoints ?? 10;
  const rate = options.rate ?? 500;
  const seconds = options.quick ? 2 : 5;
  const rounds = options.rounds ?? (options.quick ? 1 : 3);
  const token = await new SignJWT({ scope: "customers:read customers:write webhooks:manage" })
    .setProtectedHeader({ alg: "HS256" }).setSubject("bench").setIssuedAt().setExpirationTime("1h")
    .sign(new TextEncoder().encode(SECRET));
  console.log(
    `\nWebhooks: ${endpoints} endpoints on one loopback receiver process (load average ${await loadAverage()})`,
  );
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const measureOff = () =>
      withServer(token, 0, 0, [], (url) => closedLoop(url, token, CLIENTS, seconds));
    let on = { rate: 0, writes: 0 };
    let drained: Drained = { maxBacklog: 0, catchUpMs: 0 };
    const measureOn = () =>
      withReceiver((port) =>
        withServer(token, endpoints, port, [], async (url) => {
          on = await closedLoop(url, token, CLIENTS, seconds);
          drained = await drain(url);
        })
      );
    // Off first in odd rounds, on first in even ones: a load that drifts meanwhile cancels out.
    let off = { rate: 0, writes: 0 };
    let report: ReceiverReport;
    if (round % 2 === 1) {
      off = await measureOff();
      report = await measureOn();
    } else {
      report = await measureOn();
      off = await measureOff();
    }
    ratios.push(on.rate / off.rate);
    console.log(
      `  round ${round}: ${CLIENTS} closed-loop clients ${seconds} s: off ${
        off.rate.toFixed(0)
      }/s, ` +
        `on ${on.rate.toFixed(0)}/s (${(on.rate / off.rate).toFixed(2)}×); largest backlog ` +
        `${drained.maxBacklog} events (${
          (100 * drained.maxBacklog / (endpoints * on.writes)).toFixed(0)
        }% of the burst's deliveries held back), caught up ${
          (drained.catchUpMs / 1000).toFixed(1)
        } s ` +
        `after the burst; ${completeness(report, endpoints, on.writes)}`,
    );
  }
  console.log(`  write throughput on ÷ off, median of ${rounds}: ${median(ratios).toFixed(2)}×`);

  let drained: Drained = { maxBacklog: 0, catchUpMs: 0 };
  const report = await withReceiver((port) =>
    withServer(token, endpoints, port, [], async (url) => {
      await paced(url, token, rate, seconds);
      drained = await drain(url);
    })
  );
  const sorted = report.latencies.sort((a, b) => a - b);
  console.log(
    `  ${rate} writes/s for ${seconds} s: commit-to-delivery p50 ${percentile(sorted, 0.5)} ms, ` +
      `p99 ${percentile(sorted, 0.99)} ms, max ${sorted.at(-1)} ms; largest backlog ` +
      `${drained.maxBacklog}; ${completeness(report, endpoints, rate * seconds)}`,
  );
  console.log(`  load average at the end: ${await loadAverage()}`);
  if (options.cpuProfDir !== undefined) {
    await profiled(options.cpuProfDir, token, endpoints, rate, seconds);
  }
}

/** "every delivery arrived, in order" or what did not. */
function completeness(report: ReceiverReport, endpoints: number, writes: number): string {
  const paths = Object.values(report.paths);
  const missing = paths.length < endpoints || paths.some((p) => p.distinct !== writes);
  const disorder = paths.reduce((sum, p) => sum + p.outOfOrder, 0);
  const total = paths.reduce((sum, p) => sum + p.count, 0);
  if (!missing && disorder === 0) {
    return `${total} deliveries: every event to every endpoint, in seq order` +
      (total > endpoints * writes ? ` (${total - endpoints * writes} repeated)` : "");
  }
  return `INCOMPLETE: ${JSON.stringify(report.paths)} of ${writes} writes`;
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
  const output = await new Deno.Command("cat", { args: ["/proc/loadavg"], stdin: "null" }).output()
    .catch(() => undefined);
  return output?.success ? new TextDecoder().decode(output.stdout).split(" ")[0] : "?";
}
