/**
 * Starts the real server as a user would, with `deno task start` and the environment a user sets,
 * for black-box tests. The process tree is `deno task` → launcher (src/cli/start.ts) → server.
 */
import { denoTask, userEnv, withoutTaskHeader } from "./deno_task.ts";
import { TEST_SECRET } from "./tokens.ts";

const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;

/** Where and how to start a server. */
export interface StartOptions {
  /** Reuse an existing data directory (e.g. for a restart); otherwise a temp dir is created. */
  dataDir?: string;
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** Start under this open-file limit (`ulimit -n` in a bash that then runs the server). */
  openFileLimit?: number | { soft: number; hard: number };
  /** The log line to wait for: "ready" (default: the log is replayed) or "listening" (bound). */
  until?: "ready" | "listening";
  /** Called with every line the server prints on stdout, as it prints it. */
  onLine?: (line: string) => void;
}

/** How a stopped server ended, with everything it printed. */
export interface StopResult {
  /** The exit code of `deno task start` (the server's, or 128 + signal if it died of one). */
  code: number;
  signal: Deno.Signal | null;
  stdout: string;
  stderr: string;
}

/** A running server process. */
export interface TestServer {
  /** Base URL from the "listening" log line, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The server process's own PID, from its "listening" line (not the launcher's). */
  pid: number;
  dataDir: string;
  /**
   * Stops the server and waits for `deno task start` to end; idempotent. SIGTERM (the default)
   * and other signals go to `deno task`, which passes them on; SIGKILL goes to the server process
   * itself, as a crash would.
   */
  stop(signal?: Deno.Signal): Promise<StopResult>;
  /** Stops the process if still running and removes the data dir if `startServer` created it. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Sink {
  text: string;
}

/** The user's settings for a test server: its DATA_DIR, a free port, a secret, and `extra`. */
function serverEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return userEnv({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_SECRET,
    ...extra,
  });
}

/** Sends a signal, ignoring a process that has already ended. */
function signal(send: () => void): void {
  try {
    send();
  } catch {
    // Already exited; its status still tells how.
  }
}

/** Resolves true once `status` settles, false after `ms`. */
async function settlesWithin(status: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  const settled = await Promise.race([status.then(() => true as const), late]);
  clearTimeout(timer);
  return settled;
}

/** Runs `deno task start` and resolves once the server has logged "listening" and is ready. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "customer-api-e2e-" });
  const child = denoTask("start", [], serverEnv(dataDir, options.env), options.openFileLimit)
    .spawn();
  const started = performance.now();

  const out: Sink = { text: "" };
  const err: Sink = { text: "" };
  let announce: (listening: { url: string; pid: number }) => void = () => {};
  const listening = new Promise<{ url: string; pid: number }>((resolve) => announce = resolve);
  let replayed: () => void = () => {};
  const readyLine = new Promise<void>((resolve) => replayed = resolve);
  // Both pipes are drained for the whole life of the child so it never blocks on a full pipe.
  const drained = Promise.all([
    drain(child.stdout, out, (line) => {
      options.onLine?.(line);
      const entry = logEntry(line);
      if (entry?.msg === "listening") announce({ url: entry.url, pid: entry.pid });
      if (entry?.msg === "ready") replayed();
    }),
    drain(child.stderr, err),
  ]);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<{ kind: "timeout" }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), READY_TIMEOUT_MS);
  });
  const first = await Promise.race([
    listening.then((found) => ({ kind: "ready" as const, ...found })),
    child.status.then((status) => ({ kind: "exited" as const, status })),
    timedOut,
  ]);
  clearTimeout(timer);
  // The listener opens before the log replays; "ready" follows once it is replayed.
  const ready = first.kind === "ready" && (options.until === "listening" ||
    await Promise.race([
      readyLine.then(() => true),
      child.status.then(() => false),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), started + READY_TIMEOUT_MS - performance.now());
      }),
    ]));
  clearTimeout(timer);

  if (!ready) {
    // Whether it ended by itself, asked before it is made to.
    const ended = await settlesWithin(child.status, 0);
    if (first.kind === "ready") signal(() => Deno.kill(first.pid, "SIGKILL"));
    if (first.kind !== "exited") await terminate(child);
    const status = await child.status;
    await drained;
    if (ownsDataDir) await Deno.remove(dataDir, { recursive: true });
    const why = first.kind === "timeout"
      ? `did not print a "listening" line within ${READY_TIMEOUT_MS / 1000} s`
      : first.kind === "ready"
      ? ended
        ? `exited with code ${status.code} after "listening", before "ready"`
        : `did not print a "ready" line within ${READY_TIMEOUT_MS / 1000} s`
      : `exited with code ${status.code} before printing a "listening" line`;
    throw new Error(`Server ${why}.\n--- stderr ---\n${err.text}\n--- stdout ---\n${out.text}`);
  }

  let stopping: Promise<StopResult> | undefined;
  const stop = (sent: Deno.Signal = "SIGTERM"): Promise<StopResult> => {
    stopping ??= (async () => {
      if (sent === "SIGKILL") signal(() => Deno.kill(first.pid, "SIGKILL"));
      else signal(() => child.kill(sent));
      if (!await settlesWithin(child.status, STOP_TIMEOUT_MS)) {
        signal(() => Deno.kill(first.pid, "SIGKILL"));
        await terminate(child);
      }
      const status = await child.status;
      await drained;
      const stderr = withoutTaskHeader(err.text);
      return { code: status.code, signal: status.signal, stdout: out.text, stderr };
    })();
    return stopping;
  };
  const dispose = async () => {
    await stop();
    if (ownsDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  return {
    url: first.url,
    pid: first.pid,
    dataDir,
    stop,
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/**
 * Ends `deno task` and what it started: SIGTERM, which it passes down, then SIGKILL. (SIGKILL
 * alone would leave the launcher behind; the server would follow it once the launcher ends.)
 */
async function terminate(child: Deno.ChildProcess): Promise<void> {
  signal(() => child.kill("SIGTERM"));
  if (!await settlesWithin(child.status, STOP_TIMEOUT_MS)) signal(() => child.kill("SIGKILL"));
  await child.status;
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

/** A JSON log line of the server, or undefined for any other output. */
function logEntry(line: string): { msg?: string; url: string; pid: number } | undefined {
  try {
    const entry = JSON.parse(line);
    if (typeof entry?.msg === "string" && typeof entry.url === "string") return entry;
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

/** Runs `deno task start` like `startServer` and waits for it to exit on its own in `timeoutMs`. */
export async function runUntilExit(
  options: StartOptions = {},
  timeoutMs = READY_TIMEOUT_MS,
): Promise<ExitResult> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "customer-api-e2e-" });
  const started = performance.now();
  const child = denoTask("start", [], serverEnv(dataDir, options.env), options.openFileLimit)
    .spawn();
  // Collecting from the start keeps the pipes drained, so the child never blocks on them.
  const collected = child.output();
  const exited = await settlesWithin(collected, timeoutMs);
  const ms = Math.round(performance.now() - started);
  if (!exited) await terminate(child);
  const output = await collected;
  if (options.dataDir === undefined) await removeDir(dataDir);
  return {
    code: exited ? output.code : null,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: withoutTaskHeader(new TextDecoder().decode(output.stderr)),
    ms,
  };
}
