/**
 * Background work that fails is visible: a failing compaction is logged naming the file and the
 * operation, counts in /metrics, and after 3 failures in a row turns /readyz 503.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { logLines } from "../support/data_dir.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

/** Polls `check` every 50 ms until it returns true, for at most 10 s. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`Not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function metric(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
}

Deno.test("3 failed compactions in a row turn /readyz 503 naming the file, count in /metrics, and a success clears it", async () => {
  const dataDir = await makeDataDir();
  const server = await startServer({ dataDir, env: { SNAPSHOT_EVERY: "1" } });
  let stdout = "";
  try {
    const api = new ApiClient(server.url, await makeToken());
    // A file where the snapshot directory should be: every snapshot write fails.
    await Deno.remove(`${dataDir}/snapshots`, { recursive: true }).catch(() => {});
    await Deno.writeTextFile(`${dataDir}/snapshots`, "not a directory");
    const metrics = async () => await (await fetch(`${server.url}/metrics`)).text();
    for (let failures = 1; failures <= 3; failures++) {
      assert.equal(
        (await api.request("POST", "/api/customers", { json: newCustomer() })).status,
        201,
      );
      await eventually(
        `${failures} failures`,
        async () => metric(await metrics(), "compaction_failures_total") >= failures,
      );
      const ready = await fetch(`${server.url}/readyz`);
      await ready.body?.cancel();
      if (failures < 3) assert.equal(ready.status, 200, `not ready after ${failures} failure(s)`);
    }
    const ready = await fetch(`${server.url}/readyz`);
    const problem = await ready.json();
    assert.equal(ready.status, 503);
    assert.equal(problem.type, "urn:problem-type:customer-api:maintenance-failing");
    assert.ok(problem.detail.includes(`${dataDir}/snapshots`), problem.detail);
    assert.equal(metric(await metrics(), "compaction_failures_in_a_row"), 3);
    assert.equal(metric(await metrics(), "last_compaction_success_timestamp_seconds"), 0);

    await Deno.remove(`${dataDir}/snapshots`);
    assert.equal(
      (await api.request("POST", "/api/customers", { json: newCustomer() })).status,
      201,
    );
    await eventually(
      "a success",
      async () => metric(await metrics(), "last_compaction_success_timestamp_seconds") > 0,
    );
    assert.equal(metric(await metrics(), "compaction_failures_in_a_row"), 0);
    const again = await fetch(`${server.url}/readyz`);
    await again.body?.cancel();
    assert.equal(again.status, 200);
  } finally {
    stdout = (await server.stop()).stdout;
    await removeDir(dataDir);
  }
  const [failed] = logLines(stdout, "Compaction failed");
  assert.match(failed.error, /I\/O error while opening ".*\/snapshots"/);
});
