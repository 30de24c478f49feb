/** What a store tells its commit trace: each group, its appends' outcomes and its timed steps. */
import assert from "node:assert/strict";
import { JsonlEventStore } from "../../src/store/jsonl/jsonl_store.ts";
import { PostgresEventStore } from "../../src/store/postgres/postgres_event_store.ts";
import { ExpectedVersionConflictError, StorageFullError } from "../../src/store/store_errors.ts";
import { created } from "../support/events.ts";
import { RecordedCommits } from "../support/recorded_spans.ts";
import { createTestSchema } from "../support/postgres.ts";

Deno.test("JSONL: appends queued together are one traced group, its write and fdatasync timed in order", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "customer-api-trace-" });
  const trace = new RecordedCommits();
  const store = await JsonlEventStore.open(dataDir, { trace });
  try {
    await store.replay(() => {});
    await store.append([created(1)]);
    await Promise.all([store.append([created(2)]), store.append([created(3), created(4)])]);
    assert.equal(trace.groups.length, 2);
    const [first, second] = trace.groups;
    assert.deepEqual(first.appends, [{
      token: "append-1",
      events: 1,
      lastSeq: 1,
      error: undefined,
    }]);
    assert.deepEqual(
      second.appends.map((append) => [append.token, append.events, append.lastSeq]),
      [
        ["append-2", 1, 2],
        ["append-3", 2, 4],
      ],
    );
    for (const group of trace.groups) {
      assert.equal(group.backend, "jsonl");
      assert.deepEqual(group.steps.map((step) => step.name), ["log.write", "log.fdatasync"]);
      const [write, sync] = group.steps;
      assert.ok(group.start <= write.start && write.end <= sync.start && sync.end <= group.end);
    }
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("JSONL: a group refused by a full disk is traced with the error for every append in it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "customer-api-trace-" });
  const trace = new RecordedCommits();
  let full = false;
  const write = async (file: Deno.FsFile, bytes: Uint8Array) => {
    if (full) throw Object.assign(new Error("No space left on device"), { code: "ENOSPC" });
    await file.write(bytes);
  };
  const store = await JsonlEventStore.open(dataDir, { trace, write });
  try {
    await store.replay(() => {});
    full = true;
    await assert.rejects(store.append([created(1)]), StorageFullError);
    const [group] = trace.groups;
    assert.equal(group.appends.length, 1);
    assert.ok(group.appends[0].error instanceof StorageFullError);
    assert.equal(group.appends[0].lastSeq, undefined);
    assert.equal(group.steps[0].name, "log.write");
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a store given no trace measures nothing and tells nobody", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "customer-api-trace-" });
  const store = await JsonlEventStore.open(dataDir);
  try {
    await store.replay(() => {});
    const [stored] = await store.append([created(1)]);
    assert.equal(stored.seq, 1);
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PostgreSQL: a group's append call is traced, a refused append with its error", async () => {
  const schema = await createTestSchema();
  const trace = new RecordedCommits();
  const store = await PostgresEventStore.open(schema.url, { trace });
  try {
    await store.append([created(1)]);
    const results = await Promise.allSettled([
      store.append([created(2)]),
      store.append([created(3)], { expected: { [created(1).id]: 7 } }),
    ]);
    assert.deepEqual(results.map((result) => result.status), ["fulfilled", "rejected"]);
    const steps = trace.groups.map((group) => group.steps.map((step) => step.name));
    assert.deepEqual(steps[0], ["log.pool_wait", "log.append_group"], "the first group connects");
    assert.ok(steps.slice(1).every((names) => names.at(-1) === "log.append_group"));
    const appends = trace.groups.flatMap((group) => group.appends);
    assert.deepEqual(appends.map((append) => append.lastSeq), [1, 2, undefined]);
    assert.ok(appends[2].error instanceof ExpectedVersionConflictError);
    assert.ok(trace.groups.every((group) => group.backend === "postgres"));
  } finally {
    await store.close();
    await schema.drop();
  }
});
