/**
 * The README's test command as a new user runs it: in a fresh clone, with no Chromium, no ShellCheck
 * and no PostgreSQL where the tests look for one (PGPORT names a closed port). `deno task test`
 * starts an embedded PostgreSQL and unpacks @sparticuz/chromium; the same tests pass as with the
 * machine's tools but for the skips its last line lists, and it leaves nothing behind.
 */
import assert from "node:assert/strict";
import {
  closedPort,
  freshClone,
  nestedEnv,
  pathWithout,
  processesNaming,
  skippedLine,
  startTestTask,
  summary,
} from "../support/new_user.ts";
import { shortTempDir } from "../support/short_temp_dir.ts";

/** A database test, a browser test and one that needs ShellCheck. */
const TESTS = [
  "tests/store/postgres/pg_connection_test.ts",
  "tests/e2e/docs_page_test.ts",
  "tests/scripts/shellcheck_test.ts",
];
/** What the new user's machine lacks (PostgreSQL's own programs too, as on a machine without it). */
const MISSING = /^(chromium.*|google-chrome.*|shellcheck|psql|postgres|initdb|createdb|pg_.*)$/;

/** How many tests the last line lists as skipped. */
function skipCount(line: string): number {
  return line === "skipped: none" ? 0 : Number(/^skipped (\d+): /.exec(line)?.[1] ?? NaN);
}

async function assertNothingLeft(tmp: string, output: string): Promise<void> {
  assert.deepEqual(await processesNaming(tmp), [], output);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(tmp)), [], output);
}

Deno.test("deno task test in a fresh clone without Chromium, PostgreSQL or ShellCheck provisions the first two and passes the same tests but the listed skips, leaving nothing behind", async () => {
  const scratch = await Deno.makeTempDir({ prefix: "customer-api-new-user-" });
  const cleanup = [scratch];
  try {
    const clone = await freshClone(scratch);
    // Searchable by all, as /tmp is: run as root, the embedded PostgreSQL is another user.
    const [machineTmp, newTmp] = [
      await shortTempDir("nu-", 0o711),
      await shortTempDir("nu-", 0o711),
    ];
    cleanup.push(machineTmp, newTmp);

    const machine = await startTestTask(clone, TESTS, nestedEnv({ TMPDIR: machineTmp }, true)).done;
    assert.equal(machine.code, 0, machine.output);
    await assertNothingLeft(machineTmp, machine.output);

    const PATH = await pathWithout(MISSING, `${scratch}/bin`);
    const env = nestedEnv({ TMPDIR: newTmp, PATH, PGPORT: String(closedPort()) }, false);
    const fresh = await startTestTask(clone, TESTS, env).done;
    assert.equal(fresh.code, 0, fresh.output);
    assert.match(fresh.output, /nothing answers at 127\.0\.0\.1:\d+: embedded PostgreSQL 18\./);
    assert.match(fresh.output, /no CHROMIUM and no chromium on PATH: @sparticuz\/chromium's/);
    await assertNothingLeft(newTmp, fresh.output);

    // The same tests ran: only those the last line lists moved from passed to ignored.
    const [before, after] = [summary(machine.output), summary(fresh.output)];
    const [listedBefore, listedAfter] = [machine, fresh].map((r) =>
      skipCount(skippedLine(r.output))
    );
    assert.equal(before.ignored, listedBefore, machine.output);
    assert.equal(after.ignored, listedAfter, fresh.output);
    assert.equal(after.passed + after.ignored, before.passed + before.ignored, fresh.output);
    assert.match(
      skippedLine(fresh.output),
      /every script in scripts\/ and \.ci\/run passes ShellCheck with no finding \(ShellCheck is not installed/,
    );
    assert.equal(after.passed, before.passed - (listedAfter - listedBefore));
    assert.match(fresh.output, /a pooled client whose connection drops [^\n]* \.\.\. ok/);
    assert.match(fresh.output, /\/docs loads in headless Chromium [^\n]* \.\.\. ok/);
  } finally {
    for (const dir of cleanup) await Deno.remove(dir, { recursive: true });
  }
});
