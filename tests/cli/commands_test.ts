/**
 * Every command, run as the README says (`deno task <name>`): `--help` prints its usage, the
 * options and the variables it reads, exits 0 and does nothing else; an unknown option exits 2.
 */
import assert from "node:assert/strict";
import { writeEventLog } from "../../bench/support/event_log_fixture.ts";
import {
  COMPACT_USAGE,
  MIGRATE_USAGE,
  SERVER_USAGE,
  TOKEN_USAGE,
  VERIFY_USAGE,
} from "../../src/cli/usage.ts";
import { SERVER_ENV_VARS, SETTINGS_ENV_VARS } from "../../src/ops/permissions.ts";
import { listFiles, readTree } from "../support/data_dir.ts";
import { makeDataDir, removeDir } from "../support/server.ts";

const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno task <task> <args>` from the repository root with only `env` as server settings. */
async function task(name: string, args: string[], env: Record<string, string>): Promise<Run> {
  const inherited = Deno.env.toObject();
  for (const variable of SERVER_ENV_VARS) delete inherited[variable];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", name, ...args],
    cwd: REPO_ROOT,
    env: { ...inherited, NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A command that ignored --help and started a server would never end on its own.
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const output = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

const COMMANDS = [
  { name: "start", usage: SERVER_USAGE, reads: [...SETTINGS_ENV_VARS] },
  { name: "token", usage: TOKEN_USAGE, reads: ["JWT_SECRET", "DATA_DIR"] },
  { name: "verify", usage: VERIFY_USAGE, reads: ["DATA_DIR"] },
  { name: "compact", usage: COMPACT_USAGE, reads: ["DATA_DIR", "IDEMPOTENCY_MAX_KEYS"] },
  {
    name: "migrate",
    usage: MIGRATE_USAGE,
    reads: ["DATA_DIR", "DATABASE_URL", "IDEMPOTENCY_MAX_KEYS", "SEGMENT_MAX_BYTES"],
  },
];

for (const command of COMMANDS) {
  Deno.test(`deno task ${command.name} --help prints its usage with every variable it reads, exits 0 and changes nothing`, async () => {
    const parent = await makeDataDir();
    try {
      const dataDir = `${parent}/data`;
      const fixture = await writeEventLog(dataDir, 20);
      const before = await readTree(dataDir);
      for (const flag of ["--help", "-h"]) {
        const run = await task(command.name, [flag], { DATA_DIR: dataDir, PORT: "0" });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, `${command.usage}\n`);
        assert.equal(run.stderr, "");
      }
      for (const variable of command.reads) {
        assert.match(command.usage, new RegExp(`^\\s+${variable}\\s`, "m"), variable);
      }
      assert.deepEqual(await readTree(dataDir), before, `--help changed ${fixture.path}`);
    } finally {
      await removeDir(parent);
    }
  });

  Deno.test(`deno task ${command.name} with an unknown option prints the usage to stderr and exits 2`, async () => {
    const parent = await makeDataDir();
    try {
      const dataDir = `${parent}/data`;
      const run = await task(command.name, ["--no-such-option"], { DATA_DIR: dataDir, PORT: "0" });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /'--no-such-option'/);
      assert.ok(run.stderr.includes(command.usage), run.stderr);
      assert.equal(run.stdout, "");
      assert.deepEqual(await listFiles(parent), [], "it created files");
    } finally {
      await removeDir(parent);
    }
  });
}

for (const name of ["verify", "compact"]) {
  Deno.test(`deno task ${name} on a DATA_DIR that does not exist fails and creates nothing`, async () => {
    const parent = await makeDataDir();
    try {
      const dataDir = `${parent}/missing`;
      const run = await task(name, [], { DATA_DIR: dataDir });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.equal(
        run.stderr.trim(),
        `${name}: DATA_DIR "${dataDir}" does not exist; set DATA_DIR to the server's data directory`,
      );
      assert.deepEqual([...Deno.readDirSync(parent)], [], "it created something");
    } finally {
      await removeDir(parent);
    }
  });

  Deno.test(`deno task ${name} on a DATA_DIR without a log fails and creates nothing`, async () => {
    const dataDir = await makeDataDir();
    try {
      const run = await task(name, [], { DATA_DIR: dataDir });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, new RegExp(`^${name}: DATA_DIR ".*" holds no event log`));
      assert.deepEqual([...Deno.readDirSync(dataDir)], [], "it created something");
    } finally {
      await removeDir(dataDir);
    }
  });
}
