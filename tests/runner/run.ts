/**
 * `deno task test [paths…]`: `deno test` with what the suite needs and was not given. PostgreSQL:
 * TEST_DATABASE_URL, else the default server (tests/support/postgres.ts) if it answers, else one
 * embedded PostgreSQL for the run. Chromium: CHROMIUM, else `chromium` on PATH, else
 * @sparticuz/chromium's. Everything lives in one temporary directory (the tests' TMPDIR too),
 * removed when the run ends, as are its processes. The last line lists the skipped tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { findChromium } from "../support/chromium_path.ts";
import { DEFAULT_TEST_DATABASE_URL } from "../support/postgres.ts";
import { shortTempDir } from "../support/short_temp_dir.ts";
import { readSkips, SKIPS_FILE_VAR, skipsLine } from "../support/skips.ts";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./embedded_postgres.ts";
import { endGroup, killProcessesNaming, signalGroup } from "./leftovers.ts";
import { unpackChromium } from "./sparticuz_chromium.ts";

/** What the test task has always passed to `deno test`. */
const TEST_FLAGS = [
  ...["--config", "tests/deno.json", "--allow-run", "--allow-net", "--allow-env"],
  ...["--allow-read", "--allow-write"],
];
const SIGNALS: ("SIGINT" | "SIGTERM" | "SIGHUP")[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const { signals } = constants;
const say = (line: string) => console.error(`deno task test: ${line}`);

/** Whether something accepts connections at the default test database's address. */
async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  try {
    const connection = await Deno.connect({ hostname, port: Number(port || 5432) });
    connection.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * TEST_DATABASE_URL, the default server, or an embedded one started in `dir`; TEST_POSTGRES=embedded
 * asks for the embedded one whatever answers (.ci/run tests PostgreSQL 18 so, beside the machine's).
 */
async function provisionPostgres(env: Record<string, string>, dir: string) {
  const embedded = env.TEST_POSTGRES === "embedded";
  const at = new URL(DEFAULT_TEST_DATABASE_URL).host;
  if (!embedded && env.TEST_DATABASE_URL) return say("PostgreSQL from TEST_DATABASE_URL");
  if (!embedded && await answers(DEFAULT_TEST_DATABASE_URL)) return say(`PostgreSQL at ${at}`);
  await Deno.mkdir(dir);
  const postgres = await startEmbeddedPostgres(dir);
  env.TEST_DATABASE_URL = postgres.url;
  const why = embedded ? "TEST_POSTGRES=embedded" : `nothing answers at ${at}`;
  say(`${why}: embedded PostgreSQL ${postgres.version} at ${new URL(postgres.url).host}`);
  return postgres;
}

/** CHROMIUM or `chromium` on PATH, else @sparticuz/chromium unpacked into `dir`. */
async function provisionChromium(env: Record<string, string>, dir: string) {
  const found = await findChromium();
  if (found) return say(`Chromium ${found}`);
  try {
    await Deno.mkdir(dir);
    env.CHROMIUM = await unpackChromium(dir);
    say(`no CHROMIUM and no chromium on PATH: @sparticuz/chromium's (${env.CHROMIUM})`);
  } catch (error) {
    say(`no Chromium: unpacking @sparticuz/chromium failed (${error}); browser tests skip`);
  }
}

/** The exit code of `deno test`, as a shell would give it. */
function exitCode(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.on("error", (error) => (say(`deno test did not start: ${error}`), resolve(1)));
    child.on("exit", (code, signal) => resolve(code ?? 128 + (signal ? signals[signal] : 0)));
  });
}

// Test paths given run alone; otherwise the whole suite (a flag's value is not a path).
const isPath = (arg: string) => !arg.startsWith("-") && existsSync(arg);
const args = Deno.args.some(isPath) ? Deno.args : [...Deno.args, "tests/"];
// The tests' TMPDIR too. Searchable by the postgres user when run as root: PostgreSQL's data
// lives below it.
const runDir = await shortTempDir("ca-test-", 0o711);
const env: Record<string, string> = {
  ...Deno.env.toObject(),
  TMPDIR: runDir,
  [SKIPS_FILE_VAR]: `${runDir}/skips.jsonl`,
};

let child: ChildProcess | undefined;
let interrupted: typeof SIGNALS[number] | undefined;
const onSignal = (signal: typeof SIGNALS[number]) => () => {
  // A second Ctrl-C: stop at once. The tests' own group hears only what is forwarded here.
  if (interrupted && child?.pid) signalGroup(child.pid, "SIGKILL");
  else if (child?.pid) signalGroup(child.pid, signal);
  interrupted ??= signal;
};
const listeners = SIGNALS.map((signal) => [signal, onSignal(signal)] as const);
for (const [signal, listener] of listeners) Deno.addSignalListener(signal, listener);

let code = 1;
let postgres: EmbeddedPostgres | void = undefined;
try {
  const [started] = await Promise.allSettled([
    provisionPostgres(env, `${runDir}/postgres`),
    provisionChromium(env, `${runDir}/chromium`),
  ]);
  if (started.status === "rejected") {
    // As root, PostgreSQL runs as another user, who must be able to reach the run's directory.
    const hint = Deno.uid() === 0 ? ` (as root: is ${runDir} searchable by user postgres?)` : "";
    say(`cannot start an embedded PostgreSQL${hint}; set TEST_DATABASE_URL. ${started.reason}`);
  } else {
    postgres = started.value;
    if (interrupted === undefined) {
      // Its own process group, so that ending it reaches every server and browser it started.
      child = spawn(Deno.execPath(), ["test", ...TEST_FLAGS, ...args], {
        env,
        stdio: "inherit",
        detached: true,
      });
      code = await exitCode(child);
    }
  }
} finally {
  if (child?.pid) await endGroup(child.pid, "SIGTERM", 10_000);
  await postgres?.stop();
  const stray = await killProcessesNaming(runDir);
  if (stray.length > 0) say(`killed ${stray.length} stray processes: ${stray.join(" ")}`);
  const skips = await readSkips(env[SKIPS_FILE_VAR]);
  await Deno.remove(runDir, { recursive: true }).catch((error) => say(`${runDir}: ${error}`));
  console.log(skipsLine(skips));
  for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
}
Deno.exit(interrupted ? 128 + signals[interrupted] : code);
