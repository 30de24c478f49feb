/** The startup benchmark's table: seconds and ratios to the baseline, RSS per live customer. */
import type { StartupMeasurement } from "./startup_measure.ts";

/** The medians of a run. */
export interface StartupBenchResult {
  events: number;
  baselineSeconds: number;
  empty: StartupMeasurement;
  fromLog: StartupMeasurement;
  fromSnapshot: StartupMeasurement;
  /** Medians of per-run ratios to the baseline measured just before each start. */
  logRatio: { seconds: number; replay: number };
  snapshotRatio: { seconds: number; replay: number };
}

const MIB = 1024 * 1024;

/** Prints the table of a run. */
export function printTable(r: StartupBenchResult): void {
  // The empty start is the fixed cost of the runtime, not a multiple of the baseline. "seconds"
  // runs from spawning `deno task start` (the launcher, which spawns the server) to the server's
  // "ready" line; "replay s" is the server's own time for it, from its "replay done" line.
  type Ratios = StartupBenchResult["logRatio"];
  const time = (name: string, s: number, m?: StartupMeasurement, ratio?: Ratios) =>
    console.log(
      name.padEnd(34) + seconds(s * 1000).padStart(9) +
        (ratio === undefined ? "" : ratio.seconds.toFixed(2)).padStart(11) +
        (m === undefined ? "" : seconds(m.replay.ms).padStart(11)) +
        (ratio === undefined ? "" : ratio.replay.toFixed(2)).padStart(11) +
        (m === undefined ? "" : `   events ${m.replay.events}, customers ${m.replay.customers}`),
    );
  console.log(
    `${"".padEnd(34)}${"seconds".padStart(9)}${"×baseline".padStart(11)}` +
      `${"replay s".padStart(11)}${"×baseline".padStart(11)}   (ratios: medians of per-run pairs)`,
  );
  time("JSON.parse every line (baseline)", r.baselineSeconds);
  time("startup, empty DATA_DIR", r.empty.seconds, r.empty);
  time("startup from the log alone", r.fromLog.seconds, r.fromLog, r.logRatio);
  time("startup from the snapshot", r.fromSnapshot.seconds, r.fromSnapshot, r.snapshotRatio);

  const memory = (name: string, rss: number, customers: number) =>
    console.log(
      name.padEnd(34) + (rss / MIB).toFixed(1).padStart(9) +
        (customers === 0 ? "" : ((rss - r.empty.rssSettled) / customers).toFixed(0).padStart(11)),
    );
  console.log(`${"RSS".padEnd(34)}${"MiB".padStart(9)}${"B/customer".padStart(11)}`);
  const customers = r.fromLog.replay.customers;
  memory("empty DATA_DIR", r.empty.rssSettled, 0);
  memory("from the log, at listening", r.fromLog.rssListening, customers);
  memory("from the log, after compaction", r.fromLog.rssSettled, customers);
  memory("from the log, peak (VmHWM)", r.fromLog.peak, customers);
  memory("from the snapshot, settled", r.fromSnapshot.rssSettled, r.fromSnapshot.replay.customers);
}

/** The measurement with the median time. */
export function medianMeasurement(all: StartupMeasurement[]): StartupMeasurement {
  return [...all].sort((a, b) => a.seconds - b.seconds)[Math.floor((all.length - 1) / 2)];
}

/** The median of the values. */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
}

/** Milliseconds as seconds with three decimals. */
export function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}
