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
  const lines: string[] = [];
  const say = (line = "") => lines.push(line);
  say(
    `\nsearch: ${n.toLocaleString("en-US")} customers (${
      report.events.toLocaleString("en-US")
    } events, varied names); this tree against ${beforeLabel}`,
  );
  const { after, before } = report.startup;
  const m = (runs: StartupRun[], pick: (run: StartupRun) => number | undefined) =>
    median(runs.map(pick).filter((v): v is number => v !== undefined));
  const logRatio = m(after, (r) => r.logSeconds) / m(before, (r) => r.logSeconds);
  const snapshotRatio = m(after, (r) => r.snapshotSeconds) / m(before, (r) => r.snapshotSeconds);
  const perCustomer = (pick: (run: StartupRun) => number) => (m(after, pick) - m(before, pick)) / n;
  say(
    `startup and memory, medians of ${after.length} run(s)        this tree   before        ×   goal`,
  );
  say(
    `  from the log, s to ready                        ${ms(m(after, (r) => r.logSeconds))} ${
      ms(m(before, (r) => r.logSeconds))
    } ${times(logRatio)}   ≤ 1.2×: ${met(logRatio <= 1.2)}`,
  );
  say(
    `  from the snapshot, s to ready                   ${ms(m(after, (r) => r.snapshotSeconds))} ${
      ms(m(before, (r) => r.snapshotSeconds))
    } ${times(snapshotRatio)}   ≤ 1.2×: ${met(snapshotRatio <= 1.2)}`,
  );
  say(
    `  search index built, s after ready (log; snapshot) ${
      ms(m(after, (r) => r.indexLogMs) / 1000)
    } ${ms(m(after, (r) => r.indexSnapshotMs) / 1000)}`,
  );
  const rssLog = perCustomer((r) => r.rssLog);
  const rssSnapshot = perCustomer((r) => r.rssSnapshot);
  say(
    `  RSS, MiB, from the log                          ${ms(m(after, (r) => r.rssLog) / 2 ** 20)} ${
      ms(m(before, (r) => r.rssLog) / 2 ** 20)
    }   +${rssLog.toFixed(0)} B/customer   ≤ 300: ${met(rssLog <= 300)}`,
  );
  say(
    `  RSS, MiB, from the snapshot                     ${
      ms(m(after, (r) => r.rssSnapshot) / 2 ** 20)
    } ${ms(m(before, (r) => r.rssSnapshot) / 2 ** 20)}   +${
      rssSnapshot.toFixed(0)
    } B/customer   ≤ 300: ${met(rssSnapshot <= 300)}`,
  );
  const floor = report.selective.floor;
  say(
    `selective searches, one client (wrk -c1), each request a new value   p50 ms   p99 ms     req/s   goal p50 ≤ 1, p99 ≤ 5`,
  );
  say(
    `  GET one customer (the baseline)                             ${ms(floor.p50Ms)} ${
      ms(floor.p99Ms)
    } ${String(Math.round(floor.rps)).padStart(9)}`,
  );
  let selectiveMet = true;
  for (const [kind, title] of KINDS) {
    const run = report.selective[kind];
    const ok = run.p50Ms <= 1 && run.p99Ms <= 5 && run.non2xx === 0;
    selectiveMet &&= ok;
    say(
      `  ${title.padEnd(58)}${ms(run.p50Ms)} ${ms(run.p99Ms)} ${
        String(Math.round(run.rps)).padStart(9)
      }   ${met(ok)}${run.non2xx > 0 ? ` (${run.non2xx} not 2xx)` : ""}`,
    );
    const old = report.selective[`before-${kind}`];
    if (old !== undefined) {
      say(
        `    before: ${kind === "email" ? "?email=" : "?q= (a scan)"}`.padEnd(60) +
          `${ms(old.p50Ms)} ${ms(old.p99Ms)} ${String(Math.round(old.rps)).padStart(9)}`,
      );
    }
  }
  const { alone, with: beside, scans } = report.beside;
  const p99Ratio = median(alone.map((run, i) => beside[i].p99Ms / run.p99Ms));
  const scanSorted = [...scans].sort((a, b) => a - b);
  say(
    `GET one by 16 clients, alone and beside 2 unnarrowable searches a second (medians of ${alone.length} pairs)`,
  );
  say(
    `  alone:  ${Math.round(median(alone.map((r) => r.rps)))} req/s, p50 ${
      median(alone.map((r) => r.p50Ms)).toFixed(2)
    } ms, p99 ${median(alone.map((r) => r.p99Ms)).toFixed(2)} ms`,
  );
  say(
    `  beside: ${Math.round(median(beside.map((r) => r.rps)))} req/s, p50 ${
      median(beside.map((r) => r.p50Ms)).toFixed(2)
    } ms, p99 ${median(beside.map((r) => r.p99Ms)).toFixed(2)} ms`,
  );
  say(
    `  p99 beside ÷ alone: ${p99Ratio.toFixed(2)}×   goal ≤ 1.5×: ${
      met(p99Ratio <= 1.5)
    }; the searches took p50 ${
      ms(scanSorted[Math.floor(scans.length / 2)] ?? NaN).trim()
    } ms, max ${ms(scanSorted.at(-1) ?? NaN).trim()} ms (${scans.length} searches)`,
  );
  say(`writes (wrk -c64), this tree ÷ before, medians of per-round ratios`);
  const writeRatios: Record<string, number> = {};
  for (const workload of ["post", "patch"] as const) {
    const { after: a, before: b } = report.writes[workload];
    const ratio = median(a.map((run, i) => run.rps / b[i].rps));
    writeRatios[workload] = ratio;
    say(
      `  ${workload.toUpperCase().padEnd(6)} ${
        Math.round(median(a.map((r) => r.rps)))
      } req/s against ${Math.round(median(b.map((r) => r.rps)))}: ${
        times(ratio).trim()
      }   goal ≥ 0.95×: ${met(ratio >= 0.95)}   (rounds: ${
        a.map((run, i) => (run.rps / b[i].rps).toFixed(2)).join(", ")
      })`,
    );
  }
  for (const line of lines) console.log(line);
  const key = `search.${n >= 1e6 ? `${n / 1e6}m` : `${n / 1e3}k`}`;
  return [
    { name: `${key}.startup-log/before`, value: logRatio, better: "lower" },
    { name: `${key}.startup-snapshot/before`, value: snapshotRatio, better: "lower" },
    {
      name: `${key}.index-bytes-per-customer`,
      value: Math.max(rssLog, rssSnapshot),
      better: "lower",
    },
    { name: `${key}.get-p99-beside-scans/alone`, value: p99Ratio, better: "lower" },
    { name: `${key}.post/before`, value: writeRatios.post, better: "higher" },
    { name: `${key}.patch/before`, value: writeRatios.patch, better: "higher" },
    { name: `${key}.selective-goals-met`, value: selectiveMet ? 1 : 0, better: "higher" },
  ];
}
