/**
 * `deno task test` the way a new user runs it: in a fresh clone of this checkout, on a machine
 * without some tools (no Chromium, no PostgreSQL where the tests look for one), with a TMPDIR of
 * its own so that whatever the run leaves behind can be found.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { REPO_ROOT } from "./deno_task.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Runs a command to its end; throws with its stderr when it fails. */
async function run(command: string, args: string[], cwd?: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stdin: "null" }).output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")}: ${decode(output.stderr)}`);
  return decode(output.stdout);
}

/**
 * A clone of the checkout as it is now: the last commit, then the tracked and untracked files of
 * the work tree over it (so uncommitted work is what runs), nothing ignored.
 */
export async function freshClone(dir: string): Promise<string> {
  const clone = `${dir}/clone`;
  await run("git", ["clone", "--quiet", "--no-hardlinks", REPO_ROOT, clone]);
  const files = (await run("git", ["ls-files", "-z", "-c", "-o", "--exclude-standard"], REPO_ROOT))
    .split("\0").filter((file) => file !== "");
  for (const file of files) {
    const to = `${clone}/${file}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${REPO_ROOT}/${file}`, to).catch(async (error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      await Deno.remove(to).catch(() => {}); // Deleted in the work tree.
    });
  }
  return clone;
}

/**
 * PATH as it is, but without the executables `strip` matches: each directory of PATH is mirrored by
 * one of symbolic links in `dir`, leaving those out.
 */
export async function pathWithout(strip: RegExp, dir: string): Promise<string> {
  const mirrors: string[] = [];
  for (const [index, source] of (Deno.env.get("PATH") ?? "").split(":").entries()) {
    const mirror = `${dir}/path-${index}`;
    await Deno.mkdir(mirror, { recursive: true });
    try {
      for await (const entry of Deno.readDir(source)) {
        if (!strip.test(entry.name)) {
          await Deno.symlink(`${source}/${entry.name}`, `${mirror}/${entry.name}`);
        }
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    mirrors.push(mirror);
  }
  return mirrors.join(":");
}

/** A loopback port nothing listens on: where a user without PostgreSQL has none. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * This run's environment for a nested `deno task test`: none of what the outer run set up for
 * its own tests (its skip file, its test database or browser when `machine` is false), plus `add`.
 */
export function nestedEnv(add: Record<string, string>, machine: boolean): Record<string, string> {
  const env = Deno.env.toObject();
  const outer = ["TEST_SKIPS_FILE", "TEST_POSTGRES"];
  const tools = [
    "TEST_DATABASE_URL",
    "CHROMIUM",
    "CI",
    ...Object.keys(env).filter((n) => /^PG/.test(n)),
  ];
  for (const name of machine ? outer : [...outer, ...tools]) delete env[name];
  return { ...env, NO_COLOR: "1", ...add };
}

/** A `deno task test` run under way: what it printed so far, and how it ended. */
export interface TaskRun {
  child: ChildProcess;
  output(): string;
  done: Promise<{ code: number | null; signal: string | null; output: string }>;
}

/** Starts `deno task test args…` in `cwd` with exactly `env`, in a process group of its own. */
export function startTestTask(cwd: string, args: string[], env: Record<string, string>): TaskRun {
  const child = spawn(Deno.execPath(), ["task", "test", ...args], {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout!.on("data", (chunk) => text += chunk);
  child.stderr!.on("data", (chunk) => text += chunk);
  const done = new Promise<{ code: number | null; signal: string | null; output: string }>(
    (resolve) => child.on("close", (code, signal) => resolve({ code, signal, output: text })),
  );
  return { child, output: () => text, done };
}

/** The counts of deno test's summary line ("ok | 3 passed | 0 failed | 1 ignored"). */
export function summary(output: string): { passed: number; failed: number; ignored: number } {
  const line = output.split("\n").findLast((l) => /^(ok|FAILED) \| /.test(l)) ?? "";
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
  return { passed: count("passed"), failed: count("failed"), ignored: count("ignored") };
}

/** The run's last line: the skipped tests with their reasons. */
export function skippedLine(output: string): string {
  return output.trimEnd().split("\n").at(-1) ?? "";
}

/**
 * The processes whose command line or environment names `dir`, read from /proc by a process
 * allowed to (tests may not read other processes' command lines).
 */
export async function processesNaming(dir: string): Promise<string[]> {
  const script = `
    const read = (path) => { try { return Deno.readTextFileSync(path); } catch { return ""; } };
    const found = [];
    for (const { name } of Deno.readDirSync("/proc")) {
      if (!/^\\d+$/.test(name) || Number(name) === Deno.pid) continue;
      const cmdline = read("/proc/" + name + "/cmdline");
      if (cmdline.includes(Deno.args[0]) || read("/proc/" + name + "/environ").includes(Deno.args[0])) {
        found.push(name + " " + cmdline.split("\\0").join(" ").trim());
      }
    }
    console.log(JSON.stringify(found));`;
  return JSON.parse(await run(Deno.execPath(), ["eval", "--no-config", script, dir]));
}
