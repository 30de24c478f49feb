/** The loads of the search benchmark: one client searching, GET one beside paced scans. */
import { runWrk, type WrkResult } from "../support/wrk.ts";
import { unnarrowablePath } from "./search_queries.ts";

const BENCH = decodeURIComponent(new URL("../", import.meta.url).pathname);
const PATHS_SCRIPT = `${BENCH}support/paths.lua`;
const WORKLOAD_SCRIPT = `${BENCH}support/workload.lua`;

/** One client (wrk -c1) GETting the paths in turn for `seconds`. */
export async function oneClient(
  url: string,
  paths: string[],
  token: string,
  seconds: number,
  dir: string,
): Promise<WrkResult> {
  const file = `${dir}/paths-${crypto.randomUUID()}.txt`;
  await Deno.writeTextFile(file, paths.join("\n") + "\n");
  try {
    return await runWrk({
      url,
      script: PATHS_SCRIPT,
      args: [file, token],
      seconds,
      connections: 1,
    });
  } finally {
    await Deno.remove(file);
  }
}

/** GET one by 16 clients; with `scansPerSecond`, unnarrowable searches paced beside them. */
export async function getBesideScans(
  url: string,
  idsFile: string,
  token: string,
  seconds: number,
  scansPerSecond: number,
): Promise<{ get: WrkResult; scans: number[] }> {
  const scans: number[] = [];
  let running = true;
  const pacer = (async () => {
    if (scansPerSecond === 0) return;
    const gap = 1000 / scansPerSecond;
    const started = performance.now();
    for (let n = 0; running; n++) {
      const wait = started + n * gap - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!running) break;
      const sent = performance.now();
      const response = await fetch(`${url}${unnarrowablePath(Math.floor(Math.random() * 1e9))}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.body?.cancel();
      if (response.status !== 200) {
        throw new Error(`an unnarrowable search answered ${response.status}`);
      }
      scans.push(performance.now() - sent);
    }
  })();
  try {
    const get = await runWrk({
      url,
      script: WORKLOAD_SCRIPT,
      args: ["get", "/api/customers/", idsFile, token, "-"],
      seconds,
      connections: 16,
    });
    return { get, scans };
  } finally {
    running = false;
    await pacer;
  }
}
