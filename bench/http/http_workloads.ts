/** The HTTP workloads, what each target's paths are, and the wrk runs that drive them. */
import { cpuSeconds } from "../support/child_processes.ts";
import { runWrk, type WrkResult } from "../support/wrk.ts";
import { waitForQuiet } from "../support/quiet_process.ts";

const SCRIPT = decodeURIComponent(new URL("../support/workload.lua", import.meta.url).pathname);

/** A workload of the HTTP benchmark. */
export type Workload = "get" | "list" | "post" | "put" | "patch";

/** Workload names as the tables print them. */
export const WORKLOAD_TITLES: Record<Workload, string> = {
  get: "GET one customer",
  list: "GET a page of 100",
  post: "POST create (durable)",
  put: "PUT replace",
  patch: "PATCH name and phone",
};

/** The kind of server, which decides its paths. */
export type Flavour = "baseline" | "service" | "json-server";

/** Path (prefix) per workload: the baseline answers any path, so it gets the service's. */
function pathOf(flavour: Flavour, workload: Workload): string {
  if (flavour === "json-server") {
    return workload === "list" ? "/customers?_limit=100" : "/customers/";
  }
  if (workload === "list") return "/api/customers?limit=100";
  return workload === "post" ? "/api/customers" : "/api/customers/";
}

/** What a wrk run needs besides the target. */
export interface Load {
  /** The "id email" file for GET one and PUT. */
  idsFile: string;
  token: string;
  seconds: number;
}

let runs = 0;
const RUN_TAG = crypto.randomUUID().slice(0, 8);

/** Drives one target with one workload for `load.seconds`. */
export function drive(
  url: string,
  flavour: Flavour,
  workload: Workload,
  load: Load,
): Promise<WrkResult> {
  // Emails of created customers must be unique across every POST run of the process.
  const tag = `${RUN_TAG}-${++runs}`;
  return runWrk({
    url,
    script: SCRIPT,
    seconds: load.seconds,
    args: [workload, pathOf(flavour, workload), load.idsFile, load.token, tag],
  });
}

/**
 * Waits until the target has worked off what the last run left queued (json-server answers
 * POSTs seconds late): one cheap request, answered only after the backlog.
 */
export async function settle(url: string, flavour: Flavour): Promise<void> {
  const path = flavour === "json-server" ? "/customers?_limit=1" : "/healthz";
  const response = await fetch(`${url}${path}`);
  await response.body?.cancel();
}

/** A wrk run and the server's CPU time per completed request, in microseconds. */
export interface Measured extends WrkResult {
  cpuUs: number;
}

/**
 * Drives the server with `pid` at `url`, reads its CPU time around the run, then settles it and
 * waits for it to go quiet: work a run leaves behind (the service's compaction, due once writes
 * pause) would otherwise take the cores from the next target's run, timed as that target's.
 */
export async function measure(
  target: { url: string; pid: number; flavour: Flavour },
  workload: Workload,
  load: Load,
): Promise<Measured> {
  const before = await cpuSeconds(target.pid);
  const result = await drive(target.url, target.flavour, workload, load);
  const cpu = await cpuSeconds(target.pid) - before;
  await settle(target.url, target.flavour);
  await waitForQuiet(target.pid, { intervalMs: 250, timeoutMs: 30_000 });
  return { ...result, cpuUs: cpu / result.requests * 1e6 };
}

/** Writes the "id email" lines wrk rotates over, in a fixed shuffled order; "-" for no email. */
export async function writeIdsFile(
  path: string,
  ids: string[],
  emails?: string[],
  limit = ids.length,
): Promise<void> {
  const order = ids.map((_, i) => i);
  let seed = 42;
  for (let i = order.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const lines = order.slice(0, limit).map((i) => `${ids[i]} ${emails?.[i] ?? "-"}\n`);
  await Deno.writeTextFile(path, lines.join(""));
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
