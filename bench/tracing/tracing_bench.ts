/**
 * What tracing costs: GET one and POST create (durable) by `wrk -t1 -c64` against this tree with
 * OTEL_DENO off and on (exporting to a sink process), and against the tree before tracing, off
 * and on (the runtime's own spans alone). "off" against "before" in many short runs turn about,
 * on fresh processes four times, then all four in rounds whose order turns about.
 * `deno run -A bench/tracing/tracing_bench.ts [--quick] [--rounds=N] [--seconds=S] [--before=REF]`
 */
import { parseArgs } from "node:util";
import { ChildGroup } from "../support/child_processes.ts";
import { writeCustomerFixture } from "../support/customer_fixture.ts";
import { copyOfThisTree, exportTree } from "../support/other_tree.ts";
import { mintToken, randomSecret } from "../support/service_token.ts";
import { ensureWrk } from "../support/wrk.ts";
import { waitForQuiet } from "../support/quiet_process.ts";
import type { GuardedRatio } from "../regression_check.ts";
import { startService } from "../http/http_targets.ts";
import { copyDataDir } from "../http/http_bench.ts";
import {
  type Load,
  measure,
  type Measured,
  median,
  type Workload,
  WORKLOAD_TITLES,
  writeIdsFile,
} from "../http/http_workloads.ts";

/** The last commit before tracing: the service as it was without any of its hooks. */
export const BEFORE_TRACING = "5f57d9b";
/** With tracing off, GET and POST keep at least this share of the tree before's throughput. */
export const OFF_GOAL = 0.97;
const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const WORKLOADS: Workload[] = ["get", "post"];
const TARGETS = ["before", "off", "on", "runtime"] as const;
type TargetName = typeof TARGETS[number];
type Running = Awaited<ReturnType<typeof startService>> & { flavour: "service" };

export interface TracingBenchOptions {
  /** One round of 1 s runs, no warm-up: for CI. */
  quick?: boolean;
  /** Rounds of "before" and "off" (default 24); all four then run 4 rounds. */
  rounds?: number;
  seconds?: number;
  /** The tree without tracing (a git commit or a checkout's directory; default BEFORE_TRACING). */
  before?: string;
}

/** Runs the benchmark, prints a table per workload and the ratios; resolves with the ratios. */
export async function runTracingBench(options: TracingBenchOptions): Promise<GuardedRatio[]> {
  const quick = options.quick ?? false;
  const rounds = options.rounds ?? (quick ? 2 : 24);
  const costRounds = quick ? 1 : 4;
  // Two rounds (one pair) per pair of processes: each process's own speed counts once.
  const generations = Math.max(1, Math.round(rounds / 2));
  const perGeneration = 2;
  const seconds = options.seconds ?? (quick ? 1 : 3);
  await ensureWrk();
  const where = options.before ?? BEFORE_TRACING;
  const before = await exportTree(where);
  if (before === undefined) throw new Error(`tracing: no tree "${where}"`);
  const current = await copyOfThisTree();
  const root = await Deno.makeTempDir({ prefix: "customer-api-tracing-bench-" });
  const group = new ChildGroup(root);
  try {
    const fixture = await writeCustomerFixture(`${root}/data`, 10_000);
    const idsFile = `${root}/ids.txt`;
    await writeIdsFile(idsFile, fixture.ids);
    const secret = randomSecret();
    const load: Load = { idsFile, token: await mintToken(secret), seconds };
    const sink = group.spawn("otlp-sink", Deno.execPath(), [
      "run",
      "--allow-net",
      "bench/tracing/otlp_sink.ts",
    ], { cwd: REPO_ROOT });
    const { value: sinkPort } = await sink.waitForLine((line) =>
      line.startsWith('{"port":') ? JSON.parse(line).port as number : undefined
    );
    const sinkUrl = `http://127.0.0.1:${sinkPort}`;
    let started = 0;
    const start = async (name: TargetName) => {
      const traced = name === "on" || name === "runtime";
      // No snapshot during the runs: one would land in a single server's run, timed as its own.
      const env: Record<string, string> = { SNAPSHOT_EVERY: "100000000" };
      // Spans are exported while their run lasts, not seconds later in another server's run; the
      // metrics' export (once a minute) is left out of every run.
      const exporter = { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_METRIC_EXPORT_INTERVAL: "3600000" };
      if (traced) Object.assign(env, { OTEL_DENO: "true", OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl });
      if (traced) Object.assign(env, exporter);
      const dataDir = await copyDataDir(fixture, root, `${name}-${++started}`);
      const server = await startService(group, dataDir, {
        secret,
        logLevel: "info",
        name: `tracing-${name}`,
        env,
        root: name === "before" || name === "runtime" ? before.root : current.root,
      });
      return { ...server, flavour: "service" as const };
    };
    const targets = {
      before: await start("before"),
      off: await start("off"),
      on: await start("on"),
      runtime: await start("runtime"),
    };
    console.log(
      `\ntracing: wrk -t1 -c64, ${fixture.ids.length.toLocaleString("en-US")} customers, ` +
        `LOG_LEVEL=info; "before" is ${before.label} and "runtime" the same with OTEL_DENO=true ` +
        `(Deno's own spans, none of the service's), "off" and "on" this tree (copied to a ` +
        `temporary directory too) with OTEL_DENO unset and true; both traced ones export to a sink process; runs of ${seconds} s: ` +
        `${generations} × ${perGeneration} rounds of before and off at the same time (each under ` +
        `its own wrk), on new processes each time; then ${costRounds} rounds of ` +
        `${TARGETS.join(", ")} one after another, each round in the order of the one before ` +
        `reversed; medians (ratios: medians over pairs of rounds; CPU µs/req: the server's ` +
        `user+system CPU time per request)`,
    );
    const ratios: GuardedRatio[] = [];
    for (const workload of WORKLOADS) {
      const warmUp = { ...load, seconds: 1 };
      if (!quick) { for (const name of TARGETS) await measure(targets[name], workload, warmUp); }
      const one = (servers: Record<TargetName, Running>) => async (name: TargetName) => {
        // Nothing else may still be at work (a traced server exporting, the sink reading).
        const pids = [sink.pid, ...Object.values(servers).map((server) => server.pid)];
        await Promise.all(pids.map((pid) => waitForQuiet(pid, { intervalMs: 250 })));
        const measured = await measure(servers[name], workload, load);
        await group.trimOutput();
        return measured;
      };
      // The goal's two run side by side, on new processes every pair of rounds, as one process may
      // run up to 10 % faster than another of the same code for its whole life.
      const goal: Record<TargetName, Measured[]> = { before: [], off: [], on: [], runtime: [] };
      for (let generation = 0; generation < generations; generation++) {
        const names: TargetName[] = generation % 2 === 0 ? ["before", "off"] : ["off", "before"];
        const fresh = { ...targets };
        for (const name of names) fresh[name] = await start(name);
        if (!quick) { for (const name of names) await measure(fresh[name], workload, warmUp); }
        for (let round = 0; round < perGeneration; round++) {
          // At the same time, each under its own wrk: a burst of other load hits both alike.
          const quiet = [sink.pid, ...Object.values(fresh).map((server) => server.pid)];
          await Promise.all(quiet.map((pid) => waitForQuiet(pid, { intervalMs: 250 })));
          const both = await Promise.all(names.map((name) => measure(fresh[name], workload, load)));
          names.forEach((name, i) => goal[name].push(both[i]));
          await group.trimOutput();
        }
        for (const name of names) await group.stop(fresh[name].pid);
      }
      const cost = await interleaved(TARGETS, costRounds, one(targets));
      ratios.push(...report(workload, goal, cost));
    }
    const stats = await (await fetch(`${sinkUrl}/stats`)).json();
    console.log(
      `tracing: the sink received ${stats.traces.requests} trace exports ` +
        `(${(stats.traces.bytes / 1e6).toFixed(1)} MB) and ${stats.requests} exports in all`,
    );
    return ratios;
  } finally {
    await group.stopAll();
    await before.remove();
    await current.remove();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/**
 * `a` ÷ `b` (req/s, or what `of` picks) for each pair of rounds, one in each order: the geometric
 * mean of the two, so that which of them ran first in a round cancels out (here the second did
 * up to 15 % better). One round alone gives its own ratio.
 */
export function pairedRatios(
  a: Measured[],
  b: Measured[],
  of: (run: Measured) => number = (run) => run.rps,
): number[] {
  const ratios = a.map((run, i) => of(run) / of(b[i]));
  if (ratios.length === 1) return ratios;
  const pairs: number[] = [];
  for (let i = 0; i + 1 < ratios.length; i += 2) pairs.push(Math.sqrt(ratios[i] * ratios[i + 1]));
  return pairs;
}

function cpu(runs: Measured[]): string {
  return median(runs.map((run) => run.cpuUs)).toFixed(0);
}

/** Runs `names` `rounds` times, each round in the order of the one before reversed. */
async function interleaved(
  names: readonly TargetName[],
  rounds: number,
  one: (name: TargetName) => Promise<Measured>,
): Promise<Record<TargetName, Measured[]>> {
  const runs: Record<TargetName, Measured[]> = { before: [], off: [], on: [], runtime: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      runs[name].push(await one(name));
    }
  }
  return runs;
}

/** Prints one workload's table (all four) and ratios; returns the ratios to guard. */
function report(
  workload: Workload,
  goal: Record<TargetName, Measured[]>,
  runs: Record<TargetName, Measured[]>,
): GuardedRatio[] {
  console.log(`\n${WORKLOAD_TITLES[workload]}`);
  console.log("target   req/s     p50 ms   p99 ms   CPU µs/req  non-2xx");
  for (const name of TARGETS) {
    const of = (pick: (run: Measured) => number) => median(runs[name].map(pick));
    const non2xx = runs[name].reduce((sum, run) => sum + run.non2xx + run.socketErrors, 0);
    console.log(
      `${name.padEnd(8)} ${of((r) => r.rps).toFixed(0).padStart(6)}  ` +
        `${of((r) => r.p50Ms).toFixed(2).padStart(7)}  ${
          of((r) => r.p99Ms).toFixed(2).padStart(7)
        }  ` +
        `${of((r) => r.cpuUs).toFixed(0).padStart(10)}  ${String(non2xx).padStart(7)}`,
    );
  }
  const ratio = (a: TargetName, b: TargetName) => median(pairedRatios(runs[a], runs[b]));
  const off = median(pairedRatios(goal.off, goal.before));
  const on = ratio("on", "off");
  const perPair = pairedRatios(goal.off, goal.before).map((r) => r.toFixed(3)).join(", ");
  const cpuShare = median(pairedRatios(goal.off, goal.before, (run) => 1 / run.cpuUs));
  console.log(
    `off ÷ before ${off.toFixed(3)} (goal ≥ ${OFF_GOAL}: ${off >= OFF_GOAL ? "met" : "MISSED"}, ` +
      `over ${goal.off.length} runs each; pairs of rounds ${perPair}); CPU µs/req before ÷ off ` +
      `${cpuShare.toFixed(3)}; in the four's rounds ${ratio("off", "before").toFixed(3)}`,
  );
  console.log(
    `on ÷ off ${on.toFixed(3)} (tracing on costs ${((1 - on) * 100).toFixed(1)} % of req/s); ` +
      `on ÷ before ${ratio("on", "before").toFixed(3)}; the runtime's spans alone: runtime ÷ ` +
      `before ${ratio("runtime", "before").toFixed(3)}, CPU µs/req ${cpu(runs.runtime)} ` +
      `against ${cpu(runs.before)} off, this tree's on ${cpu(runs.on)}`,
  );
  return [
    { name: `tracing.${workload}.off/before`, value: off, better: "higher" },
    { name: `tracing.${workload}.on/off`, value: on, better: "higher" },
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      rounds: { type: "string" },
      seconds: { type: "string" },
      before: { type: "string" },
    },
  });
  await runTracingBench({
    quick: values.quick,
    rounds: values.rounds === undefined ? undefined : Number(values.rounds),
    seconds: values.seconds === undefined ? undefined : Number(values.seconds),
    before: values.before,
  });
}
