/** The store contract against the JSONL store in a real temp directory, with tiny segments. */
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { CompactionPolicy } from "../../../src/store/jsonl/compaction_policy.ts";
import { createLogger } from "../../../src/ops/log.ts";
import { eventStoreContract } from "../event_store_contract.ts";
import assert from "node:assert/strict";
import { writeAll } from "../../../src/lib/fs_util.ts";
import { created, updated } from "../../support/events.ts";
import { ContractSource } from "../contract_source.ts";

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

Deno.test("readFrom paging on while compactions rewrite and remove segments sees every kept event once", async () => {
  await withTempDir(async (dir) => {
    const store = await JsonlEventStore.open(dir, { segmentMaxBytes: 1024 });
    const source = new ContractSource(store);
    const policy = new CompactionPolicy(store, source, createLogger("error", () => {}), {
      snapshotEvery: 1e9,
      eraseWithinMs: 1e9,
    });
    await policy.recover();
    for (let n = 1; n <= 60; n++) source.apply(await store.append([created(n)]));
    const seen: number[] = [];
    const compactions = (async () => {
      for (let i = 0; i < 3; i++) {
        source.apply(await store.append([updated(i + 1, 2)]));
        await policy.compact();
      }
    })();
    for (let page = await store.readFrom(0, 5); page.length > 0;) {
      seen.push(...page.map((e) => e.seq));
      page = await store.readFrom(seen.at(-1)!, 5);
    }
    await compactions;
    for (let page = await store.readFrom(seen.at(-1)!, 5); page.length > 0;) {
      seen.push(...page.map((e) => e.seq));
      page = await store.readFrom(seen.at(-1)!, 5);
    }
    // Two compactions leave two snapshots, so the oldest segments may be gone: what is read is
    // a gap-free run from wherever the log was at the moment, up to the end.
    assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => seen[0] + i));
    assert.equal(seen.at(-1), 63);
    await store.close();
  });
});
