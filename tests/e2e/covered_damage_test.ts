/**
 * Damage in a log segment the snapshot already covers: the feed and history still serve that
 * segment's events, so startup refuses as `verify` does, and the README's repair path works.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { runCompact, runVerify } from "../support/data_dir.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { listSegments } from "../../src/store/jsonl/segments.ts";

Deno.test("a bit flip in a segment the snapshot covers: verify, startup and compact refuse naming the same line; moving the segment aside, the feed answers 410 for the events it held", async () => {
  const dataDir = await makeDataDir();
  const aside = await Deno.makeTempDir({ prefix: "customer-api-aside-" });
  try {
    const first = await startServer({ dataDir });
    const ids: string[] = [];
    try {
      const api = new ApiClient(first.url, await makeToken());
      for (let i = 0; i < 5; i++) ids.push((await api.create(newCustomer())).id);
    } finally {
      // A clean stop snapshots and rolls: the segment written so far is covered and closed.
      await first.stop();
    }
    const [covered, ...rest] = await listSegments(dataDir);
    assert.ok(rest.length > 0, "the stop rolled the log");
    const bytes = await Deno.readFile(covered.path);
    bytes[bytes.indexOf(0x0a) + 40] ^= 0x01; // in the first event, after the header line
    await Deno.writeFile(covered.path, bytes);

    const verify = await runVerify(dataDir);
    assert.equal(verify.code, 1, verify.stdout);
    const damage = verify.stdout.split("\n").find((line) => line.startsWith("DAMAGE: "))!;
    const [, file, place, problem] = /^DAMAGE: (.*?) (line \d+ \(byte offset \d+\)): (.*)$/
      .exec(damage)!;
    assert.equal(file, covered.path);
    assert.match(problem, /Checksum mismatch/);
    const refusal = await startServer({ dataDir }).then(
      async (server) => (await server.stop(), "it started"),
      (error: Error) => error.message,
    );
    const compact = await runCompact(dataDir);
    for (const [who, said] of [["startup", refusal], ["compact", compact.stderr]]) {
      for (const part of [file, place, problem]) {
        assert.ok(said.includes(part), `${who} lacks ${part}:\n${said}`);
      }
    }
    assert.match(refusal, /exited with code 74 /);
    assert.equal(compact.code, 1, compact.stderr);

    // Accepting the loss of that segment's events from the feed: move it out of log/.
    await Deno.rename(covered.path, `${aside}/${covered.name}`);
    assert.equal((await runVerify(dataDir)).code, 0);
    const second = await startServer({ dataDir });
    try {
      const api = new ApiClient(second.url, await makeToken());
      assert.equal((await api.get(`/api/customers/${ids[0]}`)).status, 200);
      // A consumer that had read two of the moved events is told to resync, never served a
      // damaged one.
      const feed = await api.get("/api/events?after=2");
      assert.equal(feed.status, 410, feed.text);
      assert.equal(feed.body.oldest_seq, rest[0].first);
    } finally {
      await second.stop();
    }
  } finally {
    await removeDir(dataDir);
    await removeDir(aside);
  }
});
