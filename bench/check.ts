/**
 * `deno task bench --check [--against=REF|DIR] [--write-baseline]`: measures the guarded ratios
 * (regression_check.ts), the HTTP benchmark's and the startup benchmark's, and fails with one line
 * per ratio that fell by more than 25 %. What it compares with is measured in the same run where
 * it can: another tree (`--against`, else the commit bench/baseline.json was measured at) runs in
 * the same alternating HTTP rounds and its startup beside this tree's; only when there is no such
 * tree are the ratios stored in bench/baseline.json used. `--write-baseline` stores this run's
 * ratios as the new baseline instead. The run repeats the sizes stored in the baseline.
 */
import { ratio, type TargetRuns } from "./http/http_report.ts";
import { BEFORE, runHttpBench } from "./http/http_bench.ts";
import type { Workload } from "./http/http_workloads.ts";
import {
  type Baseline,
  type CheckSettings,
  compareRatios,
  type GuardedRatio,
  parseBaseline,
  TOLERANCE,
} from "./regression_check.ts";
import { captureOutput, commitOf, writeResult } from "./support/result_file.ts";
import { runStartupBench } from "./startup/startup_bench.ts";
import type { StartupBenchResult } from "./startup/startup_report.ts";
import { exportTree, type Tree } from "./support/other_tree.ts";

/** Where the baseline lives. */
export const BASELINE_PATH = decodeURIComponent(
  new URL("./baseline.json", import.meta.url).pathname,
);

/** The sizes of a first baseline: long enough to steady the medians, short enough to run often. */
const DEFAULT_SETTINGS: CheckSettings = {
  httpRounds: 3,
  httpSeconds: 2,
  startupEvents: 200_000,
  startupRuns: 3,
};

/** How --check was asked for. */
export interface CheckOptions {
  writeBaseline: boolean;
  /** A git commit, branch or tag, or another checkout's directory, to compare with. */
  against?: string;
  /** Where check.md goes; none when undefined. */
  resultsDir?: string;
  /** The command line, for the result file. */
  command: string;
}

/** Runs the check; resolves with the exit code (0 when every ratio held, or after writing). */
export async function runCheck(options: CheckOptions): Promise<number> {
  const output = captureOutput();
  let verdict: { code: number; ratios: GuardedRatio[] };
  try {
    verdict = await check(options);
  } finally {
    output.stop();
  }
  if (options.resultsDir !== undefined) {
    const path = await writeResult(options.resultsDir, {
      name: "check",
      title: "The regression guard: guarded ratios and their verdict",
      command: options.command,
      output: output.lines,
      ratios: verdict.ratios,
    });
    console.log(`bench: wrote ${path}`);
  }
  return verdict.code;
}

async function check(options: CheckOptions): Promise<{ code: number; ratios: GuardedRatio[] }> {
  const stored = await readBaseline();
  const settings = stored?.settings ?? DEFAULT_SETTINGS;
  if (options.writeBaseline) {
    const current = (await measureRatios(settings, undefined)).current;
    printRatios(current, undefined, "");
    const baseline: Baseline = {
      measured: { at: new Date().toISOString(), commit: (await commitOf()).split(" ")[0] },
      settings,
      ratios: current,
    };
    await Deno.writeTextFile(BASELINE_PATH, `${JSON.stringify(baseline, null, 2)}\n`);
    console.log(`bench --check: wrote ${current.length} ratios to "${BASELINE_PATH}"`);
    return { code: 0, ratios: current };
  }
  const wanted = options.against ?? stored?.measured.commit;
  const tree = wanted === undefined ? undefined : await exportTree(wanted);
  if (options.against !== undefined && tree === undefined) {
    console.error(
      `bench --check: --against "${options.against}" is neither a directory nor a commit`,
    );
    return { code: 2, ratios: [] };
  }
  if (tree === undefined && stored === undefined) {
    console.error(
      `bench --check: no baseline at "${BASELINE_PATH}"; write one with --write-baseline`,
    );
    return { code: 1, ratios: [] };
  }
  if (tree === undefined) {
    console.log(
      `bench --check: the baseline's commit ${stored!.measured.commit} cannot be checked out; ` +
        `comparing with its stored ratios, measured on another run`,
    );
  } else console.log(`bench --check: comparing with ${tree.label}, measured in this run`);
  let measured;
  try {
    measured = await measureRatios(settings, tree);
  } finally {
    await tree?.remove();
  }
  const { current, other } = measured;
  const reference = other ?? stored!.ratios;
  const label = tree === undefined ? "stored baseline" : tree.label;
  printRatios(current, reference, label);
  const failures = compareRatios(current, reference);
  if (failures.length === 0) {
    console.log(
      `bench --check: all ${reference.length} ratios within ${TOLERANCE * 100} % of ${label}`,
    );
    return { code: 0, ratios: current };
  }
  for (const failure of failures) console.error(`bench --check: FAILED ${failure.message}`);
  console.error(
    `bench --check: ${failures.length} ratio(s) fell by more than ${TOLERANCE * 100} % against ` +
      `${label}. A real regression: find it (--http-cpu-prof, --cpu-prof). A deliberate change ` +
      `of the benchmark: refresh the baseline with --check --write-baseline and commit it.`,
  );
  return { code: 1, ratios: current };
}

function printRatios(
  current: GuardedRatio[],
  reference: GuardedRatio[] | undefined,
  label: string,
) {
  console.log("\nbench --check: guarded ratios of this run");
  for (const r of current) {
    const before = reference?.find((s) => s.name === r.name);
    console.log(
      `  ${r.name.padEnd(48)} ${r.value.toFixed(3).padStart(9)}` +
        (before === undefined ? "" : `   ${label} ${before.value.toFixed(3)}`) +
        `   (${r.better} is better)`,
    );
  }
}

/**
 * One run of the HTTP and startup benchmarks at `settings`, reduced to the guarded ratios; with
 * `tree`, its service runs in the same HTTP rounds and its startup right after this tree's.
 */
async function measureRatios(
  settings: CheckSettings,
  tree: Tree | undefined,
): Promise<{ current: GuardedRatio[]; other?: GuardedRatio[] }> {
  const http = await runHttpBench({
    quick: false,
    rounds: settings.httpRounds,
    seconds: settings.httpSeconds,
    warnVariant: false,
    beforeRoot: tree?.root,
  });
  const startup = (root?: string) =>
    runStartupBench({
      quick: false,
      events: settings.startupEvents,
      runs: settings.startupRuns,
      root,
    });
  const current = [...httpRatios(http.results), ...startupRatios(await startup())];
  if (tree === undefined) return { current };
  console.log(`\nstartup of ${tree.label}:`);
  const other = [...httpRatios(http.results, BEFORE), ...startupRatios(await startup(tree.root))];
  return { current, other };
}

/**
 * The service's req/s as medians of per-round ratios to the contract floor (PUT against the
 * floor's POST); `serviceName` picks another service target of the run, e.g. BEFORE. Ratios to the bare server are printed by the HTTP bench but
 * not guarded: the bare server's 100,000 req/s moved by 2 × with the machine's load, and p99
 * ratios by as much, so a 25 % guard on them would only flap.
 */
export function httpRatios(
  results: Map<Workload, TargetRuns[]>,
  serviceName?: string,
): GuardedRatio[] {
  const runsOf = (workload: Workload, pick: (t: TargetRuns) => boolean) =>
    results.get(workload)?.find(pick)?.runs ?? [];
  const isService = (t: TargetRuns) =>
    serviceName === undefined ? t.role === "service" : t.name === serviceName;
  const ratios: GuardedRatio[] = [];
  for (const workload of ["get", "list", "post", "put"] as const) {
    const service = runsOf(workload, isService);
    const floor = runsOf(workload === "put" ? "post" : workload, (t) => t.role === "floor");
    if (service.length === 0 || floor.length === 0) continue;
    ratios.push({
      name: `http.${workload}.service/floor`,
      value: ratio(service, floor),
      better: "higher",
    });
  }
  return ratios;
}

/** Startup seconds × a bare JSON.parse of every line, and RSS per live customer after compaction. */
export function startupRatios(r: StartupBenchResult): GuardedRatio[] {
  return [
    {
      name: "startup.log/json-parse",
      value: r.logRatio.seconds,
      better: "lower",
    },
    {
      name: "startup.snapshot/json-parse",
      value: r.snapshotRatio.seconds,
      better: "lower",
    },
    {
      name: "memory.rss-bytes-per-customer-after-compaction",
      value: (r.fromLog.rssSettled - r.empty.rssSettled) / r.fromLog.replay.customers,
      better: "lower",
    },
  ];
}

async function readBaseline(): Promise<Baseline | undefined> {
  try {
    return parseBaseline(await Deno.readTextFile(BASELINE_PATH), BASELINE_PATH);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
