/**
 * Where the service's CPU time goes under one workload (GET one unless told): a V8 profile,
 * summarised.
 * `deno run -A bench/http/http_profile.ts FILE.cpuprofile` summarises a saved one.
 */
import type { ChildGroup } from "../support/child_processes.ts";
import type { CpuProfile, ProfileNode } from "../support/cpu_profile.ts";
import { startService } from "./http_targets.ts";
import { drive, type Load, type Workload, WORKLOAD_TITLES } from "./http_workloads.ts";

const TOP = 15;
const IDLE = "(idle)";

/** Runs `workload` against a service started with `--cpu-prof`; prints its hottest functions. */
export async function printServiceProfile(
  group: ChildGroup,
  dataDir: string,
  secret: string,
  load: Load,
  dir: string,
  workload: Workload = "get",
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const before = new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
  const flags = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
  const service = await startService(group, dataDir, {
    secret,
    logLevel: "info",
    denoFlags: flags,
    name: `service-profiled-${workload}`,
  });
  const seconds = Math.max(load.seconds, 5);
  const result = await drive(service.url, "service", workload, { ...load, seconds });
  await group.stopAll();
  const written = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !before.has(n));
  if (written.length !== 1) throw new Error(`Expected one new profile in "${dir}"`);
  const path = `${dir}/${written[0]}`;
  console.log(
    `\ncpu profile of the service under ${WORKLOAD_TITLES[workload]} (${
      Math.round(result.rps)
    } req/s while ` +
      `profiled, ${seconds} s): ${path}`,
  );
  await printRequestProfile(path);
}

/**
 * Prints, from the first customer request to the last, self time of the top frames and inclusive time of the top
 * JS functions of a saved .cpuprofile of the service.
 */
export async function printRequestProfile(path: string): Promise<void> {
  const profile: CpuProfile = JSON.parse(await Deno.readTextFile(path));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const stack = (id: number) => {
    const frames: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      frames.push(byId.get(at)!);
    }
    return frames;
  };
  // Startup (replay) comes first and the shutdown's compaction last, while readiness probes
  // already reach the app: count from the first sample of a customer request to the last.
  const inRequest = (id: number) =>
    stack(id).some((node) => node.callFrame.url.endsWith("/customers/customer_handlers.ts"));
  const first = profile.samples.findIndex(inRequest);
  const last = profile.samples.findLastIndex(inRequest);
  let busyMs = 0;
  let idleMs = 0;
  for (let i = Math.max(first, 0); i <= last; i++) {
    const id = profile.samples[i];
    const ms = profile.timeDeltas[i] / 1000;
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === IDLE) {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    add(self, label(leaf), ms);
    const names = stack(id).filter((node) => node.callFrame.url !== "").map(label);
    for (const name of new Set(names)) add(inclusive, name, ms);
  }
  console.log(
    `from the first customer request to the last: ${busyMs.toFixed(0)} ms in JS/V8, ${
      idleMs.toFixed(0)
    } ms ` +
      `"(idle)" (outside V8: Rust HTTP and socket I/O, or waiting); shares of the JS/V8 time`,
  );
  print("self time", self, busyMs);
  print("inclusive time of JS functions", inclusive, busyMs);
}

function print(title: string, times: Map<string, number>, totalMs: number): void {
  console.log(`${title}:`);
  for (const [name, ms] of [...times].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    const share = (ms / totalMs * 100).toFixed(1);
    console.log(`  ${ms.toFixed(0).padStart(7)} ms ${share.padStart(5)} %  ${name}`);
  }
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === "") return functionName || "(anonymous)";
  const file = url.slice(url.lastIndexOf("/", url.lastIndexOf("/") - 1) + 1);
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
}

function add(times: Map<string, number>, name: string, ms: number): void {
  times.set(name, (times.get(name) ?? 0) + ms);
}

if (import.meta.main) await printRequestProfile(Deno.args[0]);
