/** The three HTTP servers the benchmark drives: the bare baseline, the service and json-server. */
import { runArgs } from "../../src/cli/server_command.ts";
import { loadConfig } from "../../src/config.ts";
import type { Child, ChildGroup } from "../support/child_processes.ts";

const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const JSON_SERVER = "json-server@0.17.4";
/** A million-customer replay takes seconds; anything near this is broken. */
const START_TIMEOUT_MS = 300_000;
const POLL_MS = 20;
/** Where json-server is installed: git-ignored, kept between runs. */
export const JSON_SERVER_DIR = `${REPO_ROOT}bench/.cache/json-server-0.17.4`;

/** A server ready for load. */
export interface Target {
  url: string;
  pid: number;
}

/** The service, with what its startup took. */
export interface ServiceTarget extends Target {
  /** Seconds from spawn to the "ready" line (at LOG_LEVEL=warn: to /readyz answering 200). */
  startupSeconds: number;
  /** The "replay done" line's figures; unknown at LOG_LEVEL=warn. */
  replay?: { events: number; customers: number; ms: number };
  /** The ms the search index took to build after "ready", when waited for. */
  indexMs?: number;
}

/** A minimal environment, so that the caller's configuration cannot leak into a run. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" };
  for (const name of ["HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Starts bench/http/baseline_server.ts on a free port. */
export async function startBaseline(group: ChildGroup): Promise<Target> {
  const child = group.spawn("baseline", Deno.execPath(), [
    "run",
    "--allow-net",
    "--allow-env=PORT",
    "bench/http/baseline_server.ts",
  ], { cwd: REPO_ROOT, clearEnv: true, env: { ...baseEnv(), PORT: "0" } });
  const { value: port } = await child.waitForLine((line) => {
    return line.startsWith('{"port":') ? JSON.parse(line).port as number : undefined;
  }, 60_000);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

/** Starts bench/http/contract_floor.ts on a free port, seeded from a json-server db file. */
export async function startFloor(
  group: ChildGroup,
  seedPath: string,
  logPath: string,
  secret: string,
): Promise<Target> {
  const child = group.spawn("floor", Deno.execPath(), [
    "run",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    "bench/http/contract_floor.ts",
  ], {
    cwd: REPO_ROOT,
    clearEnv: true,
    env: { ...baseEnv(), PORT: "0", SEED: seedPath, LOG: logPath, JWT_SECRET: secret },
  });
  const { value: port } = await child.waitForLine((line) => {
    return line.startsWith('{"port":') ? JSON.parse(line).port as number : undefined;
  }, 60_000);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

/** What the service runs with besides its data directory. */
export interface ServiceOptions {
  secret: string;
  logLevel: "info" | "warn";
  /** Flags for `deno run` before the permission flags, e.g. `--cpu-prof`. */
  denoFlags?: string[];
  name?: string;
  /** More settings, e.g. IDEMPOTENCY_MAX_KEYS for the soak. */
  env?: Record<string, string>;
  /** The checkout it runs from (default this one): another commit's, to compare two codes. */
  root?: string;
  /** Also wait for the "search index built" line (a tree that has a search index). */
  waitForIndex?: boolean;
}

/**
 * Starts the service with `deno task start` on dataDir and resolves once it listens and any
 * background compaction of the replayed log has finished. At LOG_LEVEL=warn it logs neither
 * replay nor compaction, so it gets a free port and is polled until /readyz answers: give it a
 * data directory that a previous (info) run has compacted.
 */
export async function startService(
  group: ChildGroup,
  dataDir: string,
  options: ServiceOptions,
): Promise<ServiceTarget> {
  const quiet = options.logLevel !== "info";
  const port = quiet ? freePort() : 0;
  const env = {
    ...baseEnv(),
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    JWT_SECRET: options.secret,
    LOG_LEVEL: options.logLevel,
    ...options.env,
  };
  // As a user starts it; --cpu-prof and the like need the launcher's `deno run` line itself.
  const root = options.root ?? REPO_ROOT;
  const [run, ...rest] = runArgs(loadConfig((name) => env[name as keyof typeof env]), root);
  const args = options.denoFlags ? [run, ...options.denoFlags, ...rest] : ["task", "start"];
  const child = group.spawn(options.name ?? "service", Deno.execPath(), args, {
    cwd: root,
    clearEnv: true,
    env,
  });
  // The listening line is logged at every level; its pid is the server's, not `deno task`'s.
  const { value: pid } = await child.waitForLine((line) => {
    if (!line.startsWith("{")) return undefined;
    const fields = JSON.parse(line);
    return fields.msg === "listening" ? fields.pid as number : undefined;
  }, START_TIMEOUT_MS);
  child.serverPid = pid;
  if (quiet) {
    const url = `http://127.0.0.1:${port}`;
    const at = await untilAnswers(child, `${url}/readyz`);
    return { url, pid, startupSeconds: (at - child.spawnedAt) / 1000 };
  }
  let url: string | undefined;
  let listeningAt = 0;
  let replay: ServiceTarget["replay"] | undefined;
  let compacted = false;
  let indexMs: number | undefined;
  await child.waitForLine((line) => {
    if (!line.startsWith("{")) return undefined;
    const fields = JSON.parse(line);
    if (fields.msg === "replay done") replay = fields;
    if (fields.msg === "ready") [url, listeningAt] = [fields.url, performance.now()];
    if (fields.msg === "compaction done") compacted = true;
    if (fields.msg === "search index built") indexMs = fields.ms;
    // A startup that replayed events compacts in the background right away; let it finish first.
    const ready = url !== undefined && replay !== undefined && (compacted || replay.events === 0);
    return ready && (!options.waitForIndex || indexMs !== undefined) ? true : undefined;
  }, START_TIMEOUT_MS);
  return {
    url: url!,
    pid,
    startupSeconds: (listeningAt - child.spawnedAt) / 1000,
    replay: replay!,
    indexMs,
  };
}

/** Installs json-server into bench/.cache if needed; its CLI script, or undefined with a reason. */
export async function installJsonServer(): Promise<{ bin?: string; reason?: string }> {
  const bin = `${JSON_SERVER_DIR}/node_modules/json-server/lib/cli/bin.js`;
  const pkg = `${JSON_SERVER_DIR}/node_modules/json-server/package.json`;
  const installed = await Deno.readTextFile(pkg).then((text) => JSON.parse(text).version)
    .catch(() => undefined);
  if (installed === "0.17.4") return { bin };
  await Deno.mkdir(JSON_SERVER_DIR, { recursive: true });
  console.log(`http: installing ${JSON_SERVER} into ${JSON_SERVER_DIR} …`);
  try {
    const { success, stderr } = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", ".", JSON_SERVER],
      cwd: JSON_SERVER_DIR,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) return { reason: `npm install ${JSON_SERVER} failed:\n${decode(stderr)}` };
  } catch (error) {
    return { reason: `npm is needed to install ${JSON_SERVER} (${error})` };
  }
  return { bin };
}

/** Starts json-server (quiet: no request log) with node on `dbPath`, on a free port. */
export async function startJsonServer(
  group: ChildGroup,
  bin: string,
  dbPath: string,
): Promise<Target> {
  const port = freePort();
  const child = group.spawn("json-server", "node", [
    bin,
    "--quiet",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    dbPath,
  ], { clearEnv: true, env: baseEnv() });
  const url = `http://127.0.0.1:${port}`;
  await untilAnswers(child, `${url}/customers?_limit=1`);
  return { url, pid: child.pid };
}

/** Polls `url` until it answers 2xx; resolves with performance.now() then. */
async function untilAnswers(child: Child, url: string): Promise<number> {
  let exited = false;
  child.status.then(() => exited = true);
  for (const deadline = performance.now() + START_TIMEOUT_MS; performance.now() < deadline;) {
    const answered = await fetch(url).then(async (response) => {
      await response.body?.cancel();
      return response.ok;
    }).catch(() => false);
    if (answered) return performance.now();
    if (exited) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`${child.name} did not answer ${url}`);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
