/**
 * `deno task test` leaves no PostgreSQL, no browser and no temporary directory behind when a test
 * fails with both still open, or when the run is interrupted with Ctrl-C while a test holds them.
 * Run as a new user would (tests/runner/new_user_test.ts), so that it provisions both itself.
 */
import assert from "node:assert/strict";
import process from "node:process";
import {
  closedPort,
  freshClone,
  nestedEnv,
  pathWithout,
  processesNaming,
  startTestTask,
  type TaskRun,
} from "../support/new_user.ts";
import { shortTempDir } from "../support/short_temp_dir.ts";

const HOLDS = "tests/runner/fixtures/holds_provisions.ts";
const MISSING = /^(chromium.*|google-chrome.*|psql|postgres|initdb|createdb|pg_.*)$/;

/** Resolves once the run has printed `text`; throws if it ends or takes 2 minutes first. */
async function printed(run: TaskRun, text: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  let ended = false;
  run.done.then(() => ended = true);
  while (!run.output().includes(text)) {
    if (ended || Date.now() > deadline) throw new Error(`no "${text}" in:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function assertNothingLeft(tmp: string, output: string): Promise<void> {
  assert.deepEqual(await processesNaming(tmp), [], output);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(tmp)), [], output);
}

Deno.test("deno task test leaves no PostgreSQL, browser or temporary directory behind when a test fails or the run is interrupted", async (t) => {
  const scratch = await Deno.makeTempDir({ prefix: "customer-api-leftovers-" });
  // Searchable by all, as /tmp is: run as root, the embedded PostgreSQL is another user.
  const tmp = await shortTempDir("lo-", 0o711);
  try {
    const clone = await freshClone(scratch);
    const PATH = await pathWithout(MISSING, `${scratch}/bin`);
    const env = (hold: string) =>
      nestedEnv({ TMPDIR: tmp, PATH, PGPORT: String(closedPort()), HOLD: hold }, false);

    await t.step("a test fails with its connection and browser open", async () => {
      const run = startTestTask(clone, [HOLDS], env("fail"));
      const { code, output } = await run.done;
      assert.equal(code, 1, output);
      assert.match(output, /HOLDING/);
      assert.match(output, /fails on purpose/);
      assert.match(output, /embedded PostgreSQL 18/);
      // The browser the test left open was found and ended.
      assert.match(output, /killed \d+ stray processes/);
      await assertNothingLeft(tmp, output);
    });

    await t.step("Ctrl-C while a test holds them", async () => {
      const run = startTestTask(clone, [HOLDS], env("wait"));
      await printed(run, "HOLDING");
      const held = await processesNaming(tmp);
      assert.ok(held.some((p) => /\/native\/bin\/postgres -D /.test(p)), held.join("\n"));
      assert.ok(held.some((p) => /\/chromium\/chromium/.test(p)), held.join("\n"));
      // As a terminal does: SIGINT to the whole foreground process group.
      process.kill(-run.child.pid!, "SIGINT");
      const { code, output } = await run.done;
      assert.equal(code, 130, output);
      await assertNothingLeft(tmp, output);
    });
  } finally {
    await Deno.remove(scratch, { recursive: true });
    await Deno.remove(tmp, { recursive: true });
  }
});
