/** The store contract against the JSONL store in a real temp directory, with tiny segments. */
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { CompactionPolicy } from "../../../src/store/jsonl/compaction_policy.ts";
import { createLogger } from "../../../src/ops/log.ts";
import { eventStoreContract } from "../event_store_contract.ts";
import assert from "node:assert/strict";
import { writeAll } from "../../../src/lib/fs_util.ts";
import { created, updated } from "../../support/events.ts";
import { ContractSource } from "../contract_source.ts";
import { listSegments } from "../../../src/store/jsonl/segments.ts";
import { LogTruncatedError } from "../../../src/store/store_errors.ts";

eventStoreContract("JSONL store", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jsonl_contract_" });
  return {
    // Segments of 2 KiB roll every few events, so reads cross closed and active segments.
    open: () => JsonlEventStore.open(dir, { segmentMaxBytes: 2048 }),
    maintenance: (store, source) =>
      new CompactionPolicy(store as JsonlEventStore, source, createLogger("error", () => {}), {
        snapshotEvery: 1e9,
        eraseWithinMs: 1e9,
      }),
    dispose: () => Deno.remove(dir, { recursive: true }),
  };
});

/** Runs fn with a fresh temp directory and removes it afterwards. */
async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "jsonl_read_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("readFrom while a batch is half written and unsynced returns only the durable events", async () => {
  await withTempDir(async (dir) => {
    let release = () => {};
    let halfWritten = () => {};
    let slow = false;
    const store = await JsonlEventStore.open(dir, {
      write: async (file, bytes) => {
        if (!slow) return await writeAll(file, bytes);
        // Half the batch reaches the file, then the writer stalls mid-line.
        await writeAll(file, bytes.subarray(0, bytes.length >> 1));
        const resume = new Promise<void>((resolve) => (release = resolve));
        halfWritten();
        await resume;
        await writeAll(file, bytes.subarray(bytes.length >> 1));
      },
    });
    await store.replay(() => {});
    await store.append([created(1), created(2)]);
    slow = true;
    const stalled = new Promise<void>((resolve) => (halfWritten = resolve));
    const pending = store.append([created(3), created(4)]);
    await stalled;
    assert.deepEqual((await store.readFrom(0, 10)).map((e) => e.seq), [1, 2]);
    release();
    await pending;
    assert.deepEqual((await store.readFrom(0, 10)).map((e) => e.seq), [1, 2, 3, 4]);
    await store.close();
  });
});

/** A JSONL store with tiny segments, its state source and compaction policy, recovered. */
async function openCompacting(dir: string) {
  const store = await JsonlEventStore.open(dir, { segmentMaxBytes: 1024 });
  const source = new ContractSource(store);
  const policy = new CompactionPolicy(store, source, createLogger("error", () => {}), {
    snapshotEvery: 1e9,
    eraseWithinMs: 1e9,
  });
  await policy.recover();
  return { store, source, policy };
}

Deno.test("readFrom before the oldest kept segment rejects with LogTruncatedError naming where the log begins", async () => {
  await withTempDir(async (dir) => {
    const { store, source, policy } = await openCompacting(dir);
    for (let n = 1; n <= 20; n++) source.apply(await store.append([created(n)]));
    await policy.compact();
    source.apply(await store.append([updated(1, 2)]));
    // The second compaction drops the segments both snapshots cover.
    await policy.compact();
    const oldest = (await listSegments(dir))[0].first;
    assert.ok(oldest > 1, "precondition: no segment was dropped");
    await assert.rejects(store.readFrom(0, 10), (error: unknown) => {
      assert.ok(error instanceof LogTruncatedError);
      assert.deepEqual([error.afterSeq, error.oldestSeq], [0, oldest]);
      return true;
    });
    assert.equal((await store.readFrom(oldest - 1, 1))[0].seq, oldest);
    await store.close();
  });
});

Deno.test("readFrom paging on while compactions rewrite and drop segments never skips a kept event", async () => {
  await withTempDir(async (dir) => {
    const { store, source, policy } = await openCompacting(dir);
    for (let n = 1; n <= 60; n++) source.apply(await store.append([created(n)]));
    let compacting = true;
    const compactions = (async () => {
      for (let i = 0; i < 3; i++) {
        source.apply(await store.append([updated(i + 1, 2)]));
        await policy.compact();
      }
    })().finally(() => (compacting = false));
    let cursor = 0;
    while (compacting || cursor < store.lastSeq) {
      let page;
      try {
        page = await store.readFrom(cursor, 5);
      } catch (error) {
        // Only a documented jump: the events after the cursor were dropped, none was skipped.
        if (!(error instanceof LogTruncatedError)) throw error;
        assert.ok(error.oldestSeq > cursor + 1);
        cursor = error.oldestSeq - 1;
        continue;
      }
      for (const event of page) assert.equal(event.seq, ++cursor, "a kept event was skipped");
      if (page.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await compactions;
    assert.equal(cursor, 63);
    await store.close();
  });
});
