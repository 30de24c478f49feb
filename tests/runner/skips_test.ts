/** The skip record a conditional test leaves for the run's last line (tests/support/skips.ts). */
import assert from "node:assert/strict";
import { readSkips, skipIf, SKIPS_FILE_VAR, skipsLine } from "../support/skips.ts";

Deno.test("skipIf ignores a test only with a reason, and appends test and reason to the run's file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "customer-api-skips-" });
  const before = Deno.env.get(SKIPS_FILE_VAR);
  Deno.env.set(SKIPS_FILE_VAR, `${dir}/skips.jsonl`);
  try {
    const fn = () => {};
    assert.deepEqual(skipIf(undefined, { name: "runs", fn }), { name: "runs", fn });
    assert.deepEqual(skipIf("no nginx", { name: "a; b (c)", fn }), {
      name: "a; b (c)",
      fn,
      ignore: true,
    });
    assert.equal(skipIf("no promtool", { name: "two", fn, ignore: false }).ignore, true);
    const skips = await readSkips(`${dir}/skips.jsonl`);
    assert.deepEqual(skips, [
      { test: "a; b (c)", reason: "no nginx" },
      { test: "two", reason: "no promtool" },
    ]);
    assert.equal(skipsLine(skips), "skipped 2: a; b (c) (no nginx); two (no promtool)");
  } finally {
    if (before === undefined) Deno.env.delete(SKIPS_FILE_VAR);
    else Deno.env.set(SKIPS_FILE_VAR, before);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with no skip the last line says so, and a missing file holds none", async () => {
  assert.deepEqual(await readSkips("/nonexistent/skips.jsonl"), []);
  assert.equal(skipsLine([]), "skipped: none");
});
