/** The load generator: finds (or installs) `wrk`, runs it and parses its report. */

/** What one wrk run measured. */
export interface WrkResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx/3xx: a run with any is suspect. */
  non2xx: number;
  /** Connect, read, write and timeout errors together. */
  socketErrors: number;
}

/** One wrk run: 1 thread, `connections` connections, a Lua script and its arguments. */
export interface WrkRun {
  url: string;
  script: string;
  args: string[];
  seconds: number;
  connections?: number;
}

const INSTALL_HINT =
  "Install it with `apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk`";

/** Ensures wrk is on PATH: installs it with apt-get when running as root, else explains. */
export async function ensureWrk(): Promise<void> {
  if (await hasWrk()) return;
  const root = Deno.uid() === 0;
  if (root && await run("apt-get", ["--version"])) {
    console.log("http: wrk is missing; installing it with apt-get …");
    if (!await run("apt-get", ["install", "-y", "wrk"])) {
      await run("apt-get", ["update"]);
      await run("apt-get", ["install", "-y", "wrk"]);
    }
    if (await hasWrk()) return;
  }
  throw new Error(`The HTTP benchmark needs wrk, which is not installed. ${INSTALL_HINT}.`);
}

/** Runs wrk and parses its report; throws with wrk's output if it failed. */
export async function runWrk(options: WrkRun): Promise<WrkResult> {
  const { code, stdout, stderr } = await new Deno.Command("wrk", {
    args: [
      "-t1",
      `-c${options.connections ?? 64}`,
      `-d${options.seconds}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      options.script,
      options.url,
      "--",
      ...options.args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) throw new Error(`wrk failed (code ${code}):\n${text}${decode(stderr)}`);
  return parseWrkOutput(text);
}

/** Parses wrk's `--latency` report; throws when a figure is missing. */
export function parseWrkOutput(text: string): WrkResult {
  const number = (pattern: RegExp, what: string) => {
    const match = pattern.exec(text);
    if (match === null) throw new Error(`wrk's report has no ${what}:\n${text}`);
    return match;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    requests: Number(number(/^\s*(\d+) requests in /m, "request count")[1]),
    rps: Number(number(/^Requests\/sec:\s+([\d.]+)/m, "Requests/sec")[1]),
    p50Ms: milliseconds(number(/^\s+50%\s+([\d.]+)(us|ms|s|m|h)\s*$/m, "50% latency")),
    p99Ms: milliseconds(number(/^\s+99%\s+([\d.]+)(us|ms|s|m|h)\s*$/m, "99% latency")),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0),
  };
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function milliseconds(match: RegExpExecArray): number {
  return Number(match[1]) * UNIT_MS[match[2]];
}

async function hasWrk(): Promise<boolean> {
  // `wrk -v` prints its version and exits non-zero; only a missing binary throws.
  try {
    await new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function run(command: string, args: string[]): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(command, { args, stdout: "null", stderr: "null" })
      .output();
    return success;
  } catch {
    return false;
  }
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
