/**
 * Requests/s and p50/p99 latency of the service against a bare `Deno.serve` (the ceiling) and
 * json-server 0.17.4 (the peer), all started in this run and driven in alternation by wrk with
 * 64 connections. `deno run -A bench/http/http_bench.ts [--quick] [--rounds=N] [--seconds=S]`
 */
import { parseArgs } from "node:util";
import { ChildGroup } from "../support/child_processes.ts";
import { type CustomerFixture, writeCustomerFixture } from "../support/customer_fixture.ts";
import { printServiceProfile } from "./http_profile.ts";
import { printWorkload, type TargetRuns } from "./http_report.ts";
import { printFloorTargets } from "./floor_report.ts";
import { mintToken, randomSecret } from "../support/service_token.ts";
import { type Flavour, type Load, measure, type Workload, writeIdsFile } from "./http_workloads.ts";
import {
  installJsonServer,
  startBaseline,
  startFloor,
  startJsonServer,
  startService,
  type Target,
} from "./http_targets.ts";
import { ensureWrk } from "../support/wrk.ts";

/** Sizes and repeats. */
export interface HttpBenchOptions {
  /** One round of 1 s runs, no warm-up: a few seconds, for CI. */
  quick: boolean;
  rounds?: number;
  /** Seconds per wrk run. */
  seconds?: number;
  customers?: number;
  /** Also measure the service with LOG_LEVEL=warn on GET one (default: unless quick). */
  warnVariant?: boolean;
  /** When set, one more service runs GET one under `--cpu-prof` writing here, summarised. */
  cpuProfDir?: string;
  /** The workloads profiled, one service each (default: GET one). */
  cpuProfWorkloads?: Workload[];
  /** The workloads run (default all four, in the order of WORKLOADS). */
  workloads?: Workload[];
  /**
   * Another checkout (e.g. `git worktree add /tmp/before main`): its service runs as one more
   * target in the same alternating rounds, so a change is measured before and after in one run.
   */
  beforeRoot?: string;
}

interface Running {
  name: string;
  role: TargetRuns["role"];
  flavour: Flavour;
  url: string;
  pid: number;
  workloads: Workload[];
}

const WORKLOADS: Workload[] = ["get", "list", "post", "put"];
/** The name of the service run from `beforeRoot`. */
export const BEFORE = "service before (--http-before)";
/** Seconds each target runs a workload unmeasured first, for the JIT. */
const WARM_UP = 1;

/** What a run measured: the goals' outcomes as text, and every target's runs per workload. */
export interface HttpBenchResult {
  outcomes: string[];
  results: Map<Workload, TargetRuns[]>;
}

/** Runs the benchmark and prints a table per workload; returns the outcomes and the runs. */
export async function runHttpBench(options: HttpBenchOptions): Promise<HttpBenchResult> {
  const rounds = options.rounds ?? (options.quick ? 1 : 5);
  const seconds = options.seconds ?? (options.quick ? 1 : 3);
  const customers = options.customers ?? 10_000;
  await ensureWrk();
  const root = await Deno.makeTempDir({ prefix: "customer-api-http-bench-" });
  const group = new ChildGroup(root);
  try {
    const fixture = await writeCustomerFixture(`${root}/data`, customers, true);
    const idsFile = `${root}/ids.txt`;
    await writeIdsFile(idsFile, fixture.ids, fixture.customers!.map((c) => c.email));
    const secret = randomSecret();
    const load: Load = { idsFile, token: await mintToken(secret), seconds };

    const baseline = await startBaseline(group);
    // The floor and json-server are seeded with the same customers the service replays.
    await Deno.writeTextFile(`${root}/db.json`, JSON.stringify({ customers: fixture.customers }));
    const floor = await startFloor(group, `${root}/db.json`, `${root}/floor.jsonl`, secret);
    const service = await startService(group, await copyDataDir(fixture, root, "info"), {
      secret,
      logLevel: "info",
    });
    const workloads = WORKLOADS.filter((w) => options.workloads?.includes(w) ?? true);
    const targets = [
      running("baseline (bare Deno.serve)", "baseline", baseline),
      running("contract floor", "floor", floor),
      running("service", "service", service),
    ];
    if (options.beforeRoot !== undefined) {
      const before = await startService(group, await copyDataDir(fixture, root, "before"), {
        secret,
        logLevel: "info",
        name: "service-before",
        root: options.beforeRoot,
      });
      targets.push({ ...running(BEFORE, "other", before), workloads: WORKLOADS });
    }
    if ((options.warnVariant ?? !options.quick) && workloads.includes("get")) {
      // A first (info) run replays and compacts, so the quiet run's readiness is all there is.
      const warnDir = await copyDataDir(fixture, root, "warn");
      await group.stop((await startService(group, warnDir, { secret, logLevel: "info" })).pid);
      const warn = await startService(group, warnDir, {
        secret,
        logLevel: "warn",
        name: "service-warn",
      });
      targets.push(running("service, LOG_LEVEL=warn", "other", warn));
    }
    const jsonServer = await installJsonServer();
    if (jsonServer.bin !== undefined) {
      const peer = await startJsonServer(group, jsonServer.bin, `${root}/db.json`);
      targets.push(running("json-server 0.17.4", "peer", peer));
    } else console.log(`http: json-server skipped: ${jsonServer.reason}`);

    console.log(
      `\nhttp: wrk -t1 -c64, ${customers.toLocaleString("en-US")} customers ` +
        `(${fixture.events} events), service LOG_LEVEL=info, startup ` +
        `${service.startupSeconds.toFixed(2)} s; ${rounds} round(s) of ${seconds} s per run, ` +
        `alternating targets; medians (ratios: medians of per-round ratios; CPU µs/req: the ` +
        `server process's user+system CPU time per completed request)`,
    );
    // Workload by workload, so that reads see the 10,000 customers the peer was loaded with
    // (POSTs grow both stores); within a workload, rounds alternate between the targets.
    const results = new Map<Workload, TargetRuns[]>();
    for (const workload of workloads) {
      const rows = targets.filter((t) => t.workloads.includes(workload));
      const runs: TargetRuns[] = rows.map((t) => ({ ...t, runs: [] }));
      results.set(workload, runs);
      if (!options.quick) {
        for (const target of rows) await measure(target, workload, { ...load, seconds: WARM_UP });
      }
      for (let round = 0; round < rounds; round++) {
        for (const [i, target] of rows.entries()) {
          runs[i].runs.push(await measure(target, workload, load));
          await group.trimOutput();
        }
      }
    }
    const outcomes = workloads.flatMap((w) => printWorkload(w, results.get(w)!));
    outcomes.push(...printFloorTargets(results));
    if (options.beforeRoot !== undefined) printFloorTargets(results, BEFORE);
    if (options.cpuProfDir !== undefined) {
      await group.stopAll();
      for (const workload of options.cpuProfWorkloads ?? ["get"]) {
        const dataDir = await copyDataDir(fixture, root, `prof-${workload}`);
        await printServiceProfile(group, dataDir, secret, load, options.cpuProfDir, workload);
      }
    }
    return { outcomes, results };
  } finally {
    await group.stopAll();
    await Deno.remove(root, { recursive: true });
  }
}

/** A target; the one with role "other" (the LOG_LEVEL=warn variant) only runs GET one. */
function running(name: string, role: TargetRuns["role"], server: Target): Running {
  const flavour: Flavour = role === "peer"
    ? "json-server"
    : role === "baseline"
    ? "baseline"
    : "service";
  const workloads: Workload[] = role === "other" ? ["get"] : WORKLOADS;
  return { name, role, flavour, url: server.url, pid: server.pid, workloads };
}

/** A fresh DATA_DIR holding a copy of the fixture's log (each server locks its own). */
export async function copyDataDir(
  fixture: CustomerFixture,
  root: string,
  name: string,
): Promise<string> {
  const dataDir = `${root}/data-${name}`;
  const log = fixture.logPath.slice(fixture.dataDir.length);
  await Deno.mkdir(`${dataDir}${log.slice(0, log.lastIndexOf("/"))}`, { recursive: true });
  await Deno.copyFile(fixture.logPath, `${dataDir}${log}`);
  return dataDir;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      rounds: { type: "string" },
      seconds: { type: "string" },
      "cpu-prof": { type: "string" },
    },
  });
  await runHttpBench({
    quick: values.quick,
    rounds: values.rounds === undefined ? undefined : Number(values.rounds),
    seconds: values.seconds === undefined ? undefined : Number(values.seconds),
    cpuProfDir: values["cpu-prof"],
  });
}
