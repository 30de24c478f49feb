/**
 * Child processes of a benchmark, each stopped when the group is (also on error). A child's
 * stdout goes to a file, as a log shipper would take it: no pipe to drain, so a busy benchmark
 * process never blocks a server's log writes; the file is read only while someone waits for a line.
 */

const STOP_TIMEOUT_MS = 10_000;
const STDERR_KEEP = 16_384;
const POLL_MS = 5;

/** A spawned child. */
export interface Child {
  name: string;
  pid: number;
  /** The server's pid when `pid` is a `deno task` that started it; `stop` takes either. */
  serverPid?: number;
  /** performance.now() just before the spawn. */
  spawnedAt: number;
  /** Resolves with the first stdout line `accept` returns a value for, and when it was seen. */
  waitForLine<T>(
    accept: (line: string) => T | undefined,
    timeoutMs?: number,
  ): Promise<{ value: T; at: number }>;
  /** Sends `signal`, waits for the exit (SIGKILL after a while) and resolves with the code. */
  stop(signal?: Deno.Signal): Promise<number>;
  status: Promise<Deno.CommandStatus>;
}

/** Every child spawned through it is stopped by `stopAll`. */
export class ChildGroup {
  #children = new Set<Child>();
  #outputs: string[] = [];
  #spawned = 0;

  /** Children write their stdout to files in `dir` (which must not contain a single quote). */
  constructor(private readonly dir: string) {}

  /** Spawns `command args` with stdin closed, stdout to a file and stderr kept for errors. */
  spawn(name: string, command: string, args: string[], options: Deno.CommandOptions = {}): Child {
    const stdoutPath = `${this.dir}/${name}-${++this.#spawned}.stdout`;
    Deno.writeTextFileSync(stdoutPath, "");
    this.#outputs.push(stdoutPath);
    const spawnedAt = performance.now();
    // `exec` makes the command the shell's own process: the pid below is the server's. Appending
    // lets trimOutput() empty the file under a running writer.
    const process = new Deno.Command("/bin/sh", {
      ...options,
      args: ["-c", `exec "$0" "$@" >>'${stdoutPath}'`, command, ...args],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    let exited = false;
    process.status.then(() => exited = true);
    (async () => {
      for await (const text of process.stderr.pipeThrough(new TextDecoderStream())) {
        stderr = (stderr + text).slice(-STDERR_KEEP);
      }
    })().catch(() => {});
    const fail = (why: string) => new Error(`${name} ${why}:\n${stderr}`);

    const child: Child = {
      name,
      pid: process.pid,
      spawnedAt,
      status: process.status,
      waitForLine: async <T>(accept: (line: string) => T | undefined, timeoutMs = 600_000) => {
        using file = await Deno.open(stdoutPath, { read: true });
        const decoder = new TextDecoder();
        const chunk = new Uint8Array(65536);
        const deadline = performance.now() + timeoutMs;
        let carry = "";
        while (true) {
          const done = exited;
          const read = await file.read(chunk);
          if (read !== null) {
            const lines = (carry + decoder.decode(chunk.subarray(0, read), { stream: true }))
              .split("\n");
            carry = lines.pop()!;
            for (const line of lines) {
              const value = accept(line);
              if (value !== undefined) return { value, at: performance.now() };
            }
            continue;
          }
          if (done) throw fail(`exited (code ${(await process.status).code}) too early`);
          if (performance.now() > deadline) {
            throw fail(`printed no awaited line in ${timeoutMs} ms`);
          }
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
      },
      stop: async (signal = "SIGTERM") => {
        this.#children.delete(child);
        kill(process, signal);
        const timer = setTimeout(() => kill(process, "SIGKILL"), STOP_TIMEOUT_MS);
        try {
          return (await process.status).code;
        } finally {
          clearTimeout(timer);
        }
      },
    };
    this.#children.add(child);
    return child;
  }

  /** Empties every stdout file (request logs grow by megabytes per run); call when none is awaited. */
  async trimOutput(): Promise<void> {
    await Promise.all(this.#outputs.map((path) => Deno.truncate(path, 0)));
  }

  /** Stops the child with this pid (or server pid), if it is one of the group's and running. */
  async stop(pid: number, signal: Deno.Signal = "SIGTERM"): Promise<void> {
    for (const child of this.#children) {
      if (child.pid === pid || child.serverPid === pid) await child.stop(signal);
    }
  }

  /** Stops every child still running. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#children].map((child) => child.stop()));
  }
}

/**
 * The text of /proc files, one after the other, or undefined when one cannot be read (no /proc, a
 * process gone). Read through `cat`: Deno grants /proc only with --allow-all.
 */
export async function procText(...paths: string[]): Promise<string | undefined> {
  const output = await new Deno.Command("cat", {
    args: paths,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  return output?.success ? new TextDecoder().decode(output.stdout) : undefined;
}

/** CPU ticks (user + system, all threads) of a line of /proc/<pid>/stat. */
export function statTicks(line: string): number {
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
  const fields = line.split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU seconds a process has used so far, from /proc/<pid>/stat; NaN where there is none. */
export async function cpuSeconds(pid: number): Promise<number> {
  const text = await procText(`/proc/${pid}/stat`);
  return text === undefined ? NaN : statTicks(text) / CLOCK_TICKS;
}

/** The machine's CPU jiffies so far, all of them and those idle or waiting for I/O (/proc/stat). */
export async function machineJiffies(): Promise<{ total: number; idle: number }> {
  const text = await procText("/proc/stat");
  if (text === undefined) return { total: NaN, idle: NaN };
  const values = text.split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return { total: values.reduce((sum, v) => sum + v, 0), idle: values[3] + values[4] };
}

/** USER_HZ: Linux reports CPU times in 1/100 s on every common architecture. */
const CLOCK_TICKS = 100;

function kill(process: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    process.kill(signal);
  } catch {
    // Already gone.
  }
}
