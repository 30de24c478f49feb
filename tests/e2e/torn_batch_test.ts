/**
 * A power cut during a group commit: the newest segment ends in zeros followed by complete
 * records that were never acknowledged. The server cuts them off by itself, keeps every
 * acknowledged write, reports what it cut and keeps the cut bytes for inspection.
 */
import assert from "node:assert/strict";
import { ApiClient, type Customer, newCustomer } from "../support/api.ts";
import { readEvents } from "../support/event_log.ts";
import { logLines, runVerify } from "../support/data_dir.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { encodeEvent } from "../../src/store/jsonl/event_codec.ts";
import type { StoredEvent } from "../../src/store/event_store.ts";
import { created, ulid } from "../support/events.ts";
import { concat } from "../../src/lib/bytes.ts";

Deno.test("a torn group-commit batch (zeros, then unacknowledged records) is cut off at startup, keeping every acknowledged write", async () => {
  const dataDir = await makeDataDir();
  try {
    const first = await startServer({ dataDir });
    const acked: Customer[] = [];
    try {
      const api = new ApiClient(first.url, await makeToken());
      // Concurrent creates share group commits.
      const answers = await Promise.all(
        Array.from(
          { length: 40 },
          () => api.request("POST", "/api/customers", { json: newCustomer() }),
        ),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 201);
        acked.push(answer.body as Customer);
      }
    } finally {
      await first.stop("SIGKILL");
    }
    // The power cut: the batch's first page never reached the disk (zeros), its later ones did.
    const events = await readEvents(dataDir);
    const segment = events.at(-1)!.file;
    const lastSeq = events.at(-1)!.event.seq as number;
    const intact = await Deno.readFile(segment);
    const unacked = [1, 2, 3].map((i) =>
      encodeEvent({ ...created(900 + i), seq: lastSeq + i } as StoredEvent)
    );
    const tail = [new Uint8Array(4096), ...unacked];
    for (const part of tail) await Deno.writeFile(segment, part, { append: true });
    const tornBytes = tail.reduce((n, part) => n + part.length, 0);

    const verify = await runVerify(dataDir);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /warning: .*torn last batch.*cuts off \d+ bytes, 3 record/);

    const second = await startServer({ dataDir });
    let stdout = "";
    try {
      const api = new ApiClient(second.url, await makeToken());
      for (const customer of acked) {
        const found = await api.request("GET", `/api/customers/${customer.id}`);
        assert.deepEqual(found.body, customer);
      }
      for (const i of [1, 2, 3]) {
        const cut = await api.request("GET", `/api/customers/${ulid(900 + i)}`);
        assert.equal(cut.status, 404, "an unacknowledged record was kept");
      }
      const next = await api.request("POST", "/api/customers", { json: newCustomer() });
      assert.equal(next.status, 201);
    } finally {
      stdout = (await second.stop()).stdout;
    }
    const [warning] = logLines(stdout, "Cut off a torn tail at the end of the log");
    assert.equal(warning?.level, "warn", stdout);
    assert.equal(warning.bytes_dropped, tornBytes);
    // The zeros run into the first record's line: one damaged line, then two good ones.
    assert.equal(warning.records_dropped, 3);
    assert.equal(warning.offset, intact.length);
    assert.deepEqual(
      await Deno.readFile(warning.kept_in),
      concat(tail),
    );
    const seqs = (await readEvents(dataDir)).map(({ event }) => event.seq);
    assert.equal(seqs.at(-1), lastSeq + 1, "the next write did not take the first cut seq");
  } finally {
    await removeDir(dataDir);
  }
});
