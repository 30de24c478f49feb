/** Issue 16's targets: the service's ratios to the contract floor, each met or missed. */
import { ratio, type TargetRuns, times } from "./http_report.ts";
import type { Workload } from "./http_workloads.ts";

/** One target: service `workload` ÷ floor `against` on `figure`, with its limit. */
export interface FloorGoal {
  label: string;
  workload: Workload;
  /** The floor's workload compared with: PUT is held against the floor's POST. */
  against: Workload;
  figure: "rps" | "p99";
  limit: number;
}

/** The targets of service ÷ floor. */
export const FLOOR_GOALS: FloorGoal[] = [
  { label: "GET one req/s", workload: "get", against: "get", figure: "rps", limit: 0.9 },
  { label: "page of 100 req/s", workload: "list", against: "list", figure: "rps", limit: 0.8 },
  { label: "durable POST req/s", workload: "post", against: "post", figure: "rps", limit: 0.85 },
  {
    label: "PUT req/s (floor's POST)",
    workload: "put",
    against: "post",
    figure: "rps",
    limit: 0.8,
  },
  { label: "durable POST p99", workload: "post", against: "post", figure: "p99", limit: 1.5 },
  { label: "GET one p99", workload: "get", against: "get", figure: "p99", limit: 1.5 },
];

/** A goal's outcome: the median of per-round ratios, or undefined when a side is missing. */
export interface FloorOutcome {
  goal: FloorGoal;
  value?: number;
  met?: boolean;
}

/** Judges each goal on the runs of one benchmark: the service's, or the target named `name`'s. */
export function floorOutcomes(results: Map<Workload, TargetRuns[]>, name?: string): FloorOutcome[] {
  return FLOOR_GOALS.map((goal) => {
    const service = results.get(goal.workload)?.find((t) =>
      name === undefined ? t.role === "service" : t.name === name
    );
    const floor = results.get(goal.against)?.find((t) => t.role === "floor");
    if (service === undefined || floor === undefined) return { goal };
    const value = ratio(service.runs, floor.runs, goal.figure);
    const met = goal.figure === "rps" ? value >= goal.limit : value <= goal.limit;
    return { goal, value, met };
  });
}

/** One outcome as a line, e.g. "GET one req/s ≥ 0.9× floor: 0.74× — missed". */
export function formatFloorOutcome({ goal, value, met }: FloorOutcome): string {
  const what = `${goal.label} ${goal.figure === "rps" ? "≥" : "≤"} ${goal.limit}× floor`;
  if (value === undefined) return `${what}: not measured`;
  return `${what}: ${times(value)} — ${met ? "met" : "missed"}`;
}

/** Prints the service ÷ floor table (or `name`'s); returns its lines. */
export function printFloorTargets(results: Map<Workload, TargetRuns[]>, name?: string): string[] {
  const lines = floorOutcomes(results, name).map(formatFloorOutcome);
  console.log(`\n${name ?? "service"} ÷ contract floor (medians of per-round ratios)`);
  for (const line of lines) console.log(`  target, ${line}`);
  return lines;
}
