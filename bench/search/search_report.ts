/** The search benchmark's tables and goals, each figure beside its baseline. */
import type { WrkResult } from "../support/wrk.ts";
import { median } from "../http/http_workloads.ts";
import type { GuardedRatio } from "../regression_check.ts";

/** One start of one tree, from the log and then from its snapshot. */
export interface StartupRun {
  logSeconds: number;
  snapshotSeconds: number;
  /** Only the tree with a search index has these. */
  indexLogMs?: number;
  indexSnapshotMs?: number;
  rssLog: number;
  rssSnapshot: number;
}

/** What one size measured: "after" is this tree, "before" the tree without search indexes. */
export interface SizeReport {
  customers: number;
  events: number;
  startup: { after: StartupRun[]; before: StartupRun[] };
  /** One client: "floor" GET one, each selective kind, and "before-<kind>" where it could. */
  selective: Record<string, WrkResult>;
  /** GET one by 16 clients alone and beside 2 unnarrowable searches a second (their ms). */
  beside: { alone: WrkResult[]; with: WrkResult[]; scans: number[] };
  writes: Record<"post" | "patch", { after: WrkResult[]; before: WrkResult[] }>;
}

const KINDS: [string, string][] = [
  ["email", "email:<an email> (exact)"],
  ["phone", 'phone:"<a phone>" (exact)'],
  ["crm_id", "metadata['crm_id']:<an id> (exact)"],
  ["name5", 'name~"<5 characters of a surname>"'],
];

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1).padStart(8);
const times = (value: number) => `${value.toFixed(2)}×`.padStart(8);
const met = (ok: boolean) => (ok ? "met" : "missed");

/** Prints one size's tables and goals; returns the goals as ratios. */
export function printSearchReport(report: SizeReport, beforeLabel: string): GuardedRatio[] {
  const n = report.customers;
  console.log(
    `\nsearch: ${n.toLocaleString("en-US")} customers (${report.events.toLocaleString("en-US")} ` +
      `events, varied names); this tree against ${beforeLabel}`,
  );
  const key = `search.${n >= 1e6 ? `${n / 1e6}m` : `${n / 1e3}k`}`;
  return [
    ...printStartup(report, key),
    ...printSelective(report, key),
    ...printBeside(report, key),
    ...printWrites(report, key),
  ];
}

function printStartup(report: SizeReport, key: string): GuardedRatio[] {
  const { after, before } = report.startup;
  const m = (runs: StartupRun[], pick: (run: StartupRun) => number | undefined) =>
    median(runs.map(pick).filter((v): v is number => v !== undefined));
  const log = m(after, (r) => r.logSeconds) / m(before, (r) => r.logSeconds);
  const snapshot = m(after, (r) => r.snapshotSeconds) / m(before, (r) => r.snapshotSeconds);
  const added = (pick: (run: StartupRun) => number) =>
    (m(after, pick) - m(before, pick)) / report.customers;
  const [rssLog, rssSnapshot] = [added((r) => r.rssLog), added((r) => r.rssSnapshot)];
  const mib = (bytes: number) => ms(bytes / 2 ** 20);
  console.log(
    `startup and memory, medians of ${after.length} run(s)             this tree   before        ×   goal`,
  );
  console.log(
    `  from the log, s to ready                             ${ms(m(after, (r) => r.logSeconds))} ${
      ms(m(before, (r) => r.logSeconds))
    } ${times(log)}   ≤ 1.2×: ${met(log <= 1.2)}`,
  );
  console.log(
    `  from the snapshot, s to ready                        ${
      ms(m(after, (r) => r.snapshotSeconds))
    } ${ms(m(before, (r) => r.snapshotSeconds))} ${times(snapshot)}   ≤ 1.2×: ${
      met(snapshot <= 1.2)
    }`,
  );
  console.log(
    `  search index built, s after ready (log; snapshot)    ${
      ms(m(after, (r) => r.indexLogMs) / 1000)
    } ${ms(m(after, (r) => r.indexSnapshotMs) / 1000)}`,
  );
  console.log(
    `  RSS, MiB, started from the log                       ${mib(m(after, (r) => r.rssLog))} ${
      mib(m(before, (r) => r.rssLog))
    }   +${rssLog.toFixed(0)} B/customer   ≤ 300: ${met(rssLog <= 300)}`,
  );
  console.log(
    `  RSS, MiB, started from the snapshot                  ${
      mib(m(after, (r) => r.rssSnapshot))
    } ${mib(m(before, (r) => r.rssSnapshot))}   +${rssSnapshot.toFixed(0)} B/customer   ≤ 300: ${
      met(rssSnapshot <= 300)
    }`,
  );
  if (after.length === 0) return [];
  return [
    { name: `${key}.startup-log/before`, value: log, better: "lower" },
    { name: `${key}.startup-snapshot/before`, value: snapshot, better: "lower" },
    {
      name: `${key}.index-bytes-per-customer`,
      value: Math.max(rssLog, rssSnapshot),
      better: "lower",
    },
  ];
}

function printSelective(report: SizeReport, key: string): GuardedRatio[] {
  const floor = report.selective.floor;
  if (floor === undefined) return [];
  const row = (title: string, run: WrkResult) =>
    `  ${title.padEnd(58)}${ms(run.p50Ms)} ${ms(run.p99Ms)} ${
      String(Math.round(run.rps)).padStart(9)
    }`;
  console.log(
    `selective searches, one client (wrk -c1), each request a new value   p50 ms   p99 ms     req/s   goal p50 ≤ 1, p99 ≤ 5`,
  );
  console.log(row("GET one customer (the baseline)", floor));
  let allMet = true;
  for (const [kind, title] of KINDS) {
    const run = report.selective[kind];
    const ok = run.p50Ms <= 1 && run.p99Ms <= 5 && run.non2xx === 0;
    allMet &&= ok;
    console.log(
      `${row(title, run)}   ${met(ok)}${run.non2xx > 0 ? ` (${run.non2xx} not 2xx)` : ""}`,
    );
    const old = report.selective[`before-${kind}`];
    if (old !== undefined) {
      console.log(row(`  before: ${kind === "email" ? "?email=" : "?q= (a scan)"}`, old));
    }
  }
  return [{ name: `${key}.selective-goals-met`, value: allMet ? 1 : 0, better: "higher" }];
}

function printBeside(report: SizeReport, key: string): GuardedRatio[] {
  const { alone, with: beside, scans } = report.beside;
  if (alone.length === 0) return [];
  const ratio = median(alone.map((run, i) => beside[i].p99Ms / run.p99Ms));
  const sorted = [...scans].sort((a, b) => a - b);
  const line = (runs: WrkResult[]) =>
    `${Math.round(median(runs.map((r) => r.rps)))} req/s, p50 ${
      median(runs.map((r) => r.p50Ms)).toFixed(2)
    } ms, p99 ${median(runs.map((r) => r.p99Ms)).toFixed(2)} ms`;
  console.log(
    `GET one by 16 clients, alone and beside 2 unnarrowable searches a second (medians of ${alone.length} pairs)`,
  );
  console.log(`  alone:  ${line(alone)}`);
  console.log(`  beside: ${line(beside)}`);
  console.log(
    `  p99 beside ÷ alone: ${ratio.toFixed(2)}×   goal ≤ 1.5×: ${
      met(ratio <= 1.5)
    }; the ${scans.length} searches took p50 ${
      (sorted[Math.floor(sorted.length / 2)] ?? NaN).toFixed(1)
    } ms, max ${(sorted.at(-1) ?? NaN).toFixed(1)} ms`,
  );
  return [{ name: `${key}.get-p99-beside-scans/alone`, value: ratio, better: "lower" }];
}

function printWrites(report: SizeReport, key: string): GuardedRatio[] {
  if (report.writes.post.after.length === 0) return [];
  console.log(`writes (wrk -c64), this tree ÷ before, medians of per-round ratios`);
  return (["post", "patch"] as const).map((workload) => {
    const { after: a, before: b } = report.writes[workload];
    const ratio = median(a.map((run, i) => run.rps / b[i].rps));
    const rounds = a.map((run, i) => (run.rps / b[i].rps).toFixed(2)).join(", ");
    console.log(
      `  ${workload.toUpperCase().padEnd(6)} ${
        Math.round(median(a.map((r) => r.rps)))
      } req/s against ${Math.round(median(b.map((r) => r.rps)))}: ${
        times(ratio).trim()
      }   goal ≥ 0.95×: ${met(ratio >= 0.95)}   (rounds: ${rounds})`,
    );
    return { name: `${key}.${workload}/before`, value: ratio, better: "higher" as const };
  });
}
