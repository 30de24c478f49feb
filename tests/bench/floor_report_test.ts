import assert from "node:assert/strict";
import { floorOutcomes, formatFloorOutcome } from "../../bench/http/floor_report.ts";
import type { TargetRuns } from "../../bench/http/http_report.ts";
import type { Measured, Workload } from "../../bench/http/http_workloads.ts";

function runs(role: TargetRuns["role"], figures: [rps: number, p99Ms: number][]): TargetRuns {
  const measured: Measured[] = figures.map(([rps, p99Ms]) => ({
    requests: rps,
    rps,
    p50Ms: 1,
    p99Ms,
    non2xx: 0,
    socketErrors: 0,
    cpuUs: 1,
  }));
  return { name: role, role, runs: measured };
}

Deno.test("floorOutcomes holds PUT against the floor's POST and judges p99 as an upper bound", () => {
  const results = new Map<Workload, TargetRuns[]>([
    ["get", [runs("floor", [[1000, 2], [1000, 2]]), runs("service", [[950, 4], [900, 4]])]],
    ["post", [runs("floor", [[500, 10], [500, 10]]), runs("service", [[400, 12], [400, 14]])]],
    ["put", [runs("floor", [[9999, 1], [9999, 1]]), runs("service", [[450, 20], [450, 20]])]],
  ]);
  const lines = floorOutcomes(results).map(formatFloorOutcome);
  assert.deepEqual(lines, [
    "GET one req/s ≥ 0.9× floor: 0.93× — met",
    "page of 100 req/s ≥ 0.8× floor: not measured",
    "durable POST req/s ≥ 0.85× floor: 0.80× — missed",
    "PUT req/s (floor's POST) ≥ 0.8× floor: 0.90× — met",
    "durable POST p99 ≤ 1.5× floor: 1.30× — met",
    "GET one p99 ≤ 1.5× floor: 2.00× — missed",
  ]);
});
