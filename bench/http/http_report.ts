/** The HTTP benchmark's tables: medians per target, ratios, and the targets against the bare server and json-server. */
import { median, type Workload, WORKLOAD_TITLES } from "./http_workloads.ts";
import type { Measured } from "./http_workloads.ts";
import type { WrkResult } from "../support/wrk.ts";

/** One target's runs of one workload, one per round. */
export interface TargetRuns {
  name: string;
  role: "baseline" | "floor" | "service" | "peer" | "other";
  runs: Measured[];
}

/** A target: `ratio` of the service to `against`, on req/s or p99. */
interface Goal {
  against: "baseline" | "peer";
  figure: "rps" | "p99";
  limit: number;
}

const GOALS: Record<Workload, Goal[]> = {
  get: [
    { against: "baseline", figure: "rps", limit: 0.6 },
    { against: "baseline", figure: "p99", limit: 3 },
  ],
  list: [{ against: "baseline", figure: "rps", limit: 0.15 }],
  post: [
    { against: "baseline", figure: "rps", limit: 0.3 },
    { against: "peer", figure: "rps", limit: 20 },
  ],
  put: [],
  patch: [],
};

/** The median over rounds of the per-round ratio a/b (rounds ran back to back). */
export function ratio(a: WrkResult[], b: WrkResult[], figure: "rps" | "p99" = "rps"): number {
  const value = (r: WrkResult) => figure === "rps" ? r.rps : r.p99Ms;
  const n = Math.min(a.length, b.length);
  return median(Array.from({ length: n }, (_, i) => value(a[i]) / value(b[i])));
}

/** Prints one workload's table and its goals; returns the goals' outcomes as text. */
export function printWorkload(workload: Workload, targets: TargetRuns[]): string[] {
  const baseline = targets.find((t) => t.role === "baseline");
  const service = targets.find((t) => t.role === "service");
  const peer = targets.find((t) => t.role === "peer");
  const floor = targets.find((t) => t.role === "floor");
  console.log(`\n${WORKLOAD_TITLES[workload]}`);
  console.log(
    "target".padEnd(28) + "req/s".padStart(10) + "p50 ms".padStart(9) + "p99 ms".padStart(9) +
      "×baseline".padStart(11) + "×floor".padStart(8) + "×json-server".padStart(14) +
      "CPU µs/req".padStart(12) +
      "errors".padStart(8),
  );
  for (const target of targets) {
    const runs = target.runs;
    const errors = runs.reduce((sum, r) => sum + r.non2xx + r.socketErrors, 0);
    const vs = (other?: TargetRuns) =>
      other === undefined || other === target || target.role === "baseline"
        ? ""
        : times(ratio(runs, other.runs));
    console.log(
      target.name.padEnd(28) +
        Math.round(median(runs.map((r) => r.rps))).toLocaleString("en-US").padStart(10) +
        median(runs.map((r) => r.p50Ms)).toFixed(2).padStart(9) +
        median(runs.map((r) => r.p99Ms)).toFixed(2).padStart(9) +
        vs(baseline).padStart(11) + (target === floor ? "" : vs(floor)).padStart(8) +
        (target === peer ? "" : vs(peer)).padStart(14) +
        median(runs.map((r) => r.cpuUs)).toFixed(1).padStart(12) + String(errors).padStart(8),
    );
  }
  const outcomes: string[] = [];
  for (const goal of GOALS[workload]) {
    const other = goal.against === "baseline" ? baseline : peer;
    const what = `${goal.figure === "rps" ? "req/s" : "p99"} ` +
      `${goal.figure === "rps" ? "≥" : "≤"} ${goal.limit}× ${
        goal.against === "baseline" ? "baseline" : "json-server"
      }`;
    if (service === undefined || other === undefined) {
      outcomes.push(`${WORKLOAD_TITLES[workload]}: ${what}: not measured`);
      continue;
    }
    const value = ratio(service.runs, other.runs, goal.figure);
    const met = goal.figure === "rps" ? value >= goal.limit : value <= goal.limit;
    outcomes.push(
      `${WORKLOAD_TITLES[workload]}: ${what}: ${times(value)} — ${met ? "met" : "missed"}`,
    );
  }
  for (const outcome of outcomes) console.log(`  target, ${outcome}`);
  return outcomes;
}

/** A ratio as "1.23×"; "n/a" when the other side completed no request (json-server may not). */
export function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a";
}
