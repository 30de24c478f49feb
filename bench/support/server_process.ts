/** The real server as a child process, with its JSON log lines timed as they arrive. */
import { MAIN_MODULE, runArgs } from "../../src/cli/server_command.ts";
import { loadConfig } from "../../src/config.ts";
import { procText } from "./child_processes.ts";

const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);
/** Any 32+ byte secret, for benchmarks that send no requests (others mint tokens for it). */
export const SECRET = "startup-bench-secret-0123456789abcdef";

/** One JSON log line of the server and when it arrived (performance.now()). */
export interface LogLine {
  at: number;
  fields: Record<string, unknown>;
}

/** The server ended before logging the line waited for. */
export class ServerExitedError extends Error {
  /** The signal that ended it, when one did (e.g. "SIGTERM" sent by another process). */
  readonly signal: Deno.Signal | null;

  constructor(msg: string, status: Deno.CommandStatus, stderr: string) {
    super(`The server exited (code ${status.code}) before logging "${msg}":\n${stderr}`);
    this.name = "ServerExitedError";
    this.signal = status.signal;
  }
}

/** A running server. */
export interface ServerProcess {
  /** The process spawned: `deno task start`, or the server itself when run with `denoFlags`. */
  pid: number;
  /** performance.now() just before the spawn. */
  spawnedAt: number;
  /** Resolves with the first log line (past or future) whose msg is `msg`; rejects if it exits first. */
  waitFor(msg: string, timeoutMs?: number): Promise<LogLine>;
  /** Resident set size and its peak, in bytes, from /proc/<pid>/status. */
  memory(): Promise<{ rss: number; peak: number }>;
  /** Sends the signal and waits for the exit; resolves with the exit code. */
  stop(signal: Deno.Signal): Promise<number>;
}

/**
 * Starts the server on dataDir as a user does, with `deno task start`; with `denoFlags` (e.g.
 * --cpu-prof, which a task cannot take) it runs the launcher's own `deno run` command line instead.
 * `root` is the checkout whose server runs (another one measures a change before and after).
 */
export function spawnServer(
  dataDir: string,
  denoFlags: string[] = [],
  extraEnv: Record<string, string> = {},
  root = REPO_ROOT,
): ServerProcess {
  const spawnedAt = performance.now();
  const env = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    JWT_SECRET: SECRET,
    NO_COLOR: "1",
    ...extraEnv,
  };
  const config = loadConfig((name) => env[name as keyof typeof env]);
  // The entry point too is the checkout's own.
  const [run, ...rest] = runArgs(config, root).map((arg) =>
    arg === MAIN_MODULE ? `${root}src/main.ts` : arg
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: denoFlags.length === 0 ? ["task", "start"] : [run, ...denoFlags, ...rest],
    cwd: root,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  const lines: LogLine[] = [];
  const waiters: { msg: string; resolve: (line: LogLine) => void }[] = [];
  let stderr = "";
  // Both pipes are drained for the child's whole life so that it never blocks on a full pipe.
  eachLine(child.stdout, (text) => {
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(text);
    } catch {
      return;
    }
    const line = { at: performance.now(), fields };
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.msg === fields.msg)) waiter.resolve(line);
  });
  const stderrDone = eachLine(child.stderr, (text) => stderr += `${text}\n`);

  const waitFor = (msg: string, timeoutMs = 600_000): Promise<LogLine> => {
    const seen = lines.find((line) => line.fields.msg === msg);
    if (seen !== undefined) return Promise.resolve(seen);
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      new Promise<LogLine>((resolve) => waiters.push({ msg, resolve })),
      child.status.then(async (status) => {
        await stderrDone;
        throw new ServerExitedError(msg, status, stderr);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`The server did not log "${msg}" within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  };

  return {
    pid: child.pid,
    spawnedAt,
    waitFor,
    // The server's own pid, from its "listening" line: not that of `deno task` or the launcher.
    memory: async () => processMemory((await waitFor("listening")).fields.pid as number),
    stop: async (signal) => {
      try {
        // SIGKILL goes to the server itself: killed, `deno task` would leave the launcher and the
        // server behind, holding DATA_DIR's lock. Other signals go through `deno task`, which
        // passes them on.
        if (signal === "SIGKILL") {
          Deno.kill((await waitFor("listening")).fields.pid as number, "SIGKILL");
        } else child.kill(signal);
      } catch {
        // Already exited; its status still says how.
      }
      return (await child.status).code;
    },
  };
}

/** A process's resident set size and its peak (VmHWM), in bytes. */
export async function processMemory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await procStatus(pid);
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]);
  return { rss: kib("VmRSS") * 1024, peak: kib("VmHWM") * 1024 };
}

/**
 * /proc/<pid>/status. Deno grants /proc only with --allow-all, which `deno task bench` does not
 * give; then `cat` (a millisecond, where a `deno eval` child would take tens) reads it.
 */
async function procStatus(pid: number): Promise<string> {
  const path = `/proc/${pid}/status`;
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
  }
  const text = await procText(path);
  if (text === undefined) throw new Error(`Could not read "${path}"`);
  return text;
}

/** Calls onLine for every line of a byte stream; resolves at its end. */
function eachLine(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  return (async () => {
    let carry = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (carry + chunk).split("\n");
      carry = parts.pop()!;
      for (const part of parts) onLine(part);
    }
    if (carry !== "") onLine(carry);
  })();
}
