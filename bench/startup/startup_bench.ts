/**
 * Startup of the real server on a large log, from the log alone and from a snapshot, as ratios
 * to a bare `JSON.parse` of every line of the same file measured in the same run; and RSS per
 * live customer. `deno run -A bench/startup/startup_bench.ts [--quick] [--events=N] [--runs=N]
 * [--cpu-prof=DIR]`.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config.ts";
import { printProfile, summariseProfile } from "../support/cpu_profile.ts";
import { writeEventLog } from "../support/event_log_fixture.ts";
import { parseEveryLine } from "./json_parse_baseline.ts";
import { measureStartup, type StartupMeasurement } from "./startup_measure.ts";
import {
  median,
  medianMeasurement,
  printTable,
  seconds,
  type StartupBenchResult,
} from "./startup_report.ts";

/** Sizes and repeats. */
export interface StartupBenchOptions {
  /** ~20,000 events instead of 1,000,000: a few seconds, for CI. */
  quick: boolean;
  /** Overrides the number of events. */
  events?: number;
  /** Measurements of each kind; the table shows medians. Default 3, with --quick 1. */
  runs?: number;
  /** When set, one more start from the log and one from the snapshot run under --cpu-prof here. */
  cpuProfDir?: string;
  /** The checkout whose server is measured (default this one), ending in "/". */
  root?: string;
}

const MIB = 1024 * 1024;

/** Runs the benchmark, prints a table and returns the medians. */
export async function runStartupBench(options: StartupBenchOptions): Promise<StartupBenchResult> {
  const events = options.events ?? (options.quick ? 20_000 : 1_000_000);
  const runs = options.runs ?? (options.quick ? 1 : 3);
  for (const [name, value] of [["events", events], ["runs", runs]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new Error(`--${name} "${value}" must be a positive integer`);
    }
  }
  const root = await Deno.makeTempDir({ prefix: "customer-api-startup-bench-" });
  try {
    const dataDir = `${root}/data`;
    const generating = performance.now();
    // Cut into segments as the server would have written them with its default settings.
    const { segmentMaxBytes } = loadConfig(() => undefined);
    const log = await writeEventLog(dataDir, events, { segmentMaxBytes });
    console.log(
      `startup: ${events} events (${log.created} created, ${log.updated} updated, ` +
        `${log.deleted} deleted; ${log.live} live), ${(log.bytes / MIB).toFixed(0)} MiB in ` +
        `${log.paths.length} segment(s), ` +
        `written in ${seconds(performance.now() - generating)} s; ${runs} run(s), medians`,
    );
    // Second names for the segments survive compaction (which writes new files, removes these).
    await Deno.mkdir(`${root}/pristine`);
    const pristine = log.paths.map((path) => `${root}/pristine/${basename(path)}`);
    for (const [i, path] of log.paths.entries()) await Deno.link(path, pristine[i]);
    const restoreLog = async () => {
      await Deno.remove(`${dataDir}/log`, { recursive: true });
      await Deno.remove(`${dataDir}/snapshots`, { recursive: true }).catch(() => {});
      await Deno.mkdir(`${dataDir}/log`);
      for (const [i, path] of log.paths.entries()) await Deno.link(pristine[i], path);
    };

    // An unmeasured pass first: the first read after writing the log is slower (writeback).
    await parseEveryLine(pristine, events);
    const empty = await measureStartup(`${root}/empty`, { signal: "SIGTERM", root: options.root });
    const baselines: number[] = [];
    const fromLog: StartupMeasurement[] = [];
    for (let run = 0; run < runs; run++) {
      baselines.push(await parseEveryLine(pristine, events));
      if (run > 0) await restoreLog();
      // SIGKILL keeps the log-only state for the next run; SIGTERM (last run) writes the snapshot.
      const signal = run === runs - 1 ? "SIGTERM" : "SIGKILL";
      fromLog.push(await measureStartup(dataDir, { signal, root: options.root }));
      console.log(
        `startup: run ${run + 1}: baseline ${baselines[run].toFixed(3)} s, ` +
          `from the log ${fromLog[run].seconds.toFixed(3)} s`,
      );
    }
    // Each start is paired with a baseline measured just before it: on a loaded machine the
    // ratio of a pair moves far less than either figure.
    const snapshotBaselines: number[] = [];
    const fromSnapshot: StartupMeasurement[] = [];
    for (let run = 0; run < runs; run++) {
      snapshotBaselines.push(await parseEveryLine(pristine, events));
      fromSnapshot.push(await measureStartup(dataDir, { signal: "SIGTERM", root: options.root }));
      console.log(
        `startup: run ${run + 1}: baseline ${snapshotBaselines[run].toFixed(3)} s, ` +
          `from the snapshot ${fromSnapshot[run].seconds.toFixed(3)} s`,
      );
    }

    const ratios = (starts: StartupMeasurement[], bases: number[]) => ({
      seconds: median(starts.map((m, i) => m.seconds / bases[i])),
      replay: median(starts.map((m, i) => m.replay.ms / 1000 / bases[i])),
    });
    const result: StartupBenchResult = {
      events,
      baselineSeconds: median(baselines),
      empty,
      fromLog: medianMeasurement(fromLog),
      fromSnapshot: medianMeasurement(fromSnapshot),
      logRatio: ratios(fromLog, baselines),
      snapshotRatio: ratios(fromSnapshot, snapshotBaselines),
    };
    printTable(result);
    if (options.cpuProfDir !== undefined) {
      await restoreLog();
      await profileStartups(dataDir, options.cpuProfDir);
    }
    return result;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * One more startup from the log, then one from the snapshot, under --cpu-prof; prints where the
 * time before "listening" went in each.
 */
async function profileStartups(dataDir: string, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  // Samples after the first frame of the background compaction or of the shutdown are not startup.
  const afterStartup = (name: string, url: string) =>
    (url.endsWith("/src/store/jsonl/compaction_policy.ts") &&
      (name === "compact" || name === "startCompaction")) ||
    (url.endsWith("/src/main.ts") && name === "stop");
  for (const kind of ["the log alone", "the snapshot"]) {
    const before = new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
    const denoFlags = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
    await measureStartup(dataDir, { signal: "SIGTERM", denoFlags, settle: false });
    const written = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !before.has(n));
    if (written.length !== 1) throw new Error(`Expected one new profile in "${dir}"`);
    const path = `${dir}/${written[0]}`;
    console.log(`startup from ${kind}: ${path}`);
    printProfile(await summariseProfile(path, afterStartup));
  }
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      events: { type: "string" },
      runs: { type: "string" },
      "cpu-prof": { type: "string" },
    },
  });
  await runStartupBench({
    quick: values.quick,
    events: values.events === undefined ? undefined : Number(values.events),
    runs: values.runs === undefined ? undefined : Number(values.runs),
    cpuProfDir: values["cpu-prof"],
  });
}
