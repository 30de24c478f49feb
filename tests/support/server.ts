/** Starts the real server as a child process, the way an operator would, for black-box tests. */
import { SERVER_ENV_VARS, serverPermissionFlags } from "../../src/ops/permissions.ts";
import { TEST_SECRET } from "./tokens.ts";

const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;
// Server configuration inherited from the test runner's environment would make runs irreproducible.
const CONFIG_VARS = SERVER_ENV_VARS;

/** Where and how to start a server. */
export interface StartOptions {
  /** Reuse an existing data directory (e.g. for a restart); otherwise a temp dir is created. */
  dataDir?: string;
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** The log line to wait for: "ready" (default: the log is replayed) or "listening" (bound). */
  until?: "ready" | "listening";
}

/** How a stopped server ended, with everything it printed. */
export interface StopResult {
  code: number;
  signal: Deno.Signal | null;
  stdout: string;
  stderr: string;
}

/** A running server process. */
export interface TestServer {
  /** Base URL from the "listening" log line, e.g. `http://127.0.0.1:40123`. */
  url: string;
  dataDir: string;
  /** Sends `signal` (default SIGTERM) and waits for the exit; idempotent. */
  stop(signal?: Deno.Signal): Promise<StopResult>;
  /** Stops the process if still running and removes the data dir if `startServer` created it. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Sink {
  text: string;
}

/**
 * `run`, the Dockerfile's permission flags with this server's DATA_DIR (and JWKS_FILE, if any) in
 * the allow-lists, and `src/main.ts`: a permission the code lacks fails the end-to-end tests.
 */
function serverArgs(env: Record<string, string>): string[] {
  const flags = serverPermissionFlags({
    dataDir: env.DATA_DIR || "./data",
    readOnly: env.JWKS_FILE ? [env.JWKS_FILE] : [],
  });
  // A SOCKET is read and written where it is (the launcher grants it the same way).
  if (env.SOCKET) flags.push(`--allow-read=${env.SOCKET}`, `--allow-write=${env.SOCKET}`);
  return ["run", ...flags, "src/main.ts"];
}

/** The runner's environment without server settings, plus the test defaults and `extra`. */
function serverEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of CONFIG_VARS) delete env[name];
  return {
    ...env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_SECRET,
    NO_COLOR: "1",
    ...extra,
  };
}

/** Spawns `deno run … src/main.ts` and resolves once it has printed its "listening" line. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "customer-api-e2e-" });
  const env = serverEnv(dataDir, options.env);
  const child = new Deno.Command(Deno.execPath(), {
    args: serverArgs(env),
    cwd: REPO_ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  const out: Sink = { text: "" };
  const err: Sink = { text: "" };
  let announce: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => announce = resolve);
  // Both pipes are drained for the whole life of the child so it never blocks on a full pipe.
  const drained = Promise.all([
    drain(child.stdout, out, (line) => {
      const url = listeningUrl(line, options.until ?? "ready");
      if (url) announce(url);
    }),
    drain(child.stderr, err),
  ]);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<{ kind: "timeout" }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), READY_TIMEOUT_MS);
  });
  const first = await Promise.race([
    listening.then((url) => ({ kind: "ready" as const, url })),
    child.status.then((status) => ({ kind: "exited" as const, status })),
    timedOut,
  ]);
  clearTimeout(timer);

  if (first.kind !== "ready") {
    if (first.kind === "timeout") child.kill("SIGKILL");
    const status = await child.status;
    await drained;
    if (ownsDataDir) await Deno.remove(dataDir, { recursive: true });
    const why = first.kind === "timeout"
      ? `did not print a "listening" line within ${READY_TIMEOUT_MS / 1000} s`
      : `exited with code ${status.code} before printing a "listening" line`;
    throw new Error(`Server ${why}.\n--- stderr ---\n${err.text}\n--- stdout ---\n${out.text}`);
  }

  let stopping: Promise<StopResult> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM"): Promise<StopResult> => {
    stopping ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // Already exited on its own; its status still tells how.
      }
      let guard: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<void>((resolve) => guard = setTimeout(resolve, STOP_TIMEOUT_MS));
      const exited = await Promise.race([child.status.then(() => true), hung.then(() => false)]);
      clearTimeout(guard);
      if (!exited) child.kill("SIGKILL");
      const status = await child.status;
      await drained;
      return { code: status.code, signal: status.signal, stdout: out.text, stderr: err.text };
    })();
    return stopping;
  };
  const dispose = async () => {
    await stop();
    if (ownsDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  return { url: first.url, dataDir, stop, dispose, [Symbol.asyncDispose]: dispose };
}

/** Makes a temp directory to share between several server lives; remove it with `removeDir`. */
export async function makeDataDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "customer-api-e2e-" });
}

/** Removes a directory tree, ignoring one that is already gone. */
export async function removeDir(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch(() => {});
}

async function drain(
  stream: ReadableStream<Uint8Array>,
  sink: Sink,
  onLine?: (line: string) => void,
): Promise<void> {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    sink.text += chunk;
    if (!onLine) continue;
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf("\n")) >= 0) {
      onLine(pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
  }
  if (onLine && pending) onLine(pending);
}

function listeningUrl(line: string, msg: string): string | undefined {
  try {
    const entry = JSON.parse(line);
    if (entry?.msg === msg && typeof entry.url === "string") return entry.url;
  } catch {
    // Not every stdout line has to be ours to understand.
  }
  return undefined;
}

/** How a server that was expected to refuse to start ended. */
export interface ExitResult {
  /** The exit code, or `null` if it was still running at the deadline (then it is killed). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit (or to the deadline). */
  ms: number;
}

/** Spawns the server like `startServer` and waits for it to exit on its own within `timeoutMs`. */
export async function runUntilExit(
  options: StartOptions = {},
  timeoutMs = READY_TIMEOUT_MS,
): Promise<ExitResult> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "customer-api-e2e-" });
  const env = serverEnv(dataDir, options.env);
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: serverArgs(env),
    cwd: REPO_ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  // Collecting from the start keeps the pipes drained, so the child never blocks on them.
  const collected = child.output();
  const outcome = await Promise.race([collected, deadline]);
  clearTimeout(timer);
  const ms = Math.round(performance.now() - started);
  if (outcome === "timeout") child.kill("SIGKILL");
  const output = await collected;
  if (options.dataDir === undefined) await removeDir(dataDir);
  return {
    code: outcome === "timeout" ? null : output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
    ms,
  };
}
