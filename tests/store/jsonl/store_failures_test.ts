/** Contract §6: a full disk rolls back and goes on, a failed sync stops the store, segments roll. */
import assert from "node:assert/strict";
import { ulid } from "../../support/events.ts";
import type { CustomerEvent } from "../../../src/domain/events.ts";
import type { EventMeta, StoredEvent } from "../../../src/store/event_store.ts";
import { writeAll } from "../../../src/lib/fs_util.ts";
import { JsonlEventStore, type JsonlStoreOptions } from "../../../src/store/jsonl/jsonl_store.ts";
import { listSegments } from "../../../src/store/jsonl/segments.ts";
import { LOG_DIR, segmentName } from "../../../src/store/jsonl/data_dir_layout.ts";
import {
  StorageFullError,
  StoreFailedError,
  WriteFailedError,
} from "../../../src/store/store_errors.ts";

type NewEvent = CustomerEvent & EventMeta;

/** The n-th test event: a customer created with a name that makes each line ~300 bytes. */
function makeEvent(n: number): NewEvent {
  const id = ulid(n);
  const time = new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
  return {
    type: "customer.created",
    id,
    version: 1,
    time,
    actor: "store-failures",
    request_id: `req-${n}`,
    data: {
      id,
      name: `Kunde ${n} Müller-Lüdenscheidt`,
      email: `k${n}@example.com`,
      phone: null,
      address: null,
      metadata: { n: String(n) },
      created_at: time,
      updated_at: time,
      version: 1,
    },
  };
}

/** An error shaped like the one Deno throws for a full disk. */
function diskFull(): Error {
  return Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "store_failures_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function openReplayed(dir: string, options: JsonlStoreOptions = {}) {
  const store = await JsonlEventStore.open(dir, options);
  const events: StoredEvent[] = [];
  // Replay leaves data as JSON text; parse it back to compare with what was appended.
  await store.replay(({ dataJson, ...event }) =>
    events.push({ ...event, data: dataJson === null ? null : JSON.parse(dataJson) } as StoredEvent)
  );
  return { store, events };
}

const firstSegment = (dir: string) => `${dir}/${LOG_DIR}/${segmentName(1)}`;
const seqs = (events: readonly StoredEvent[]) => events.map((event) => event.seq);

Deno.test("an ENOSPC write rejects with StorageFullError, cuts the half-written bytes off and the next append takes the next seq", async () => {
  await withTempDir(async (dir) => {
    let failNext = false;
    // Half the bytes reach the file before the disk is "full", as a real short write leaves them.
    const write = async (file: Deno.FsFile, bytes: Uint8Array) => {
      if (!failNext) return await writeAll(file, bytes);
      failNext = false;
      await writeAll(file, bytes.subarray(0, bytes.length >> 1));
      throw diskFull();
    };
    const { store } = await openReplayed(dir, { write });
    const acked = [...await store.append([makeEvent(1)]), ...await store.append([makeEvent(2)])];
    const before = await Deno.readFile(firstSegment(dir));

    failNext = true;
    const error = await store.append([makeEvent(3)]).catch((e) => e);
    assert.ok(error instanceof StorageFullError, `rejected with ${error}`);
    assert.equal((error.cause as { code: string }).code, "ENOSPC");
    assert.deepEqual(
      await Deno.readFile(firstSegment(dir)),
      before,
      "the file was not rolled back",
    );
    assert.equal(store.lastSeq, 2);

    acked.push(...await store.append([makeEvent(4)]));
    assert.deepEqual(seqs(acked), [1, 2, 3], "the failed append's seq was not given back");
    assert.equal(acked[2].id, makeEvent(4).id);
    await store.close();

    const reopened = await openReplayed(dir);
    assert.deepEqual(reopened.events, acked);
    await reopened.store.close();
  });
});

Deno.test("a write failing with another error rejects with WriteFailedError and the store keeps taking writes", async () => {
  await withTempDir(async (dir) => {
    let failNext = false;
    const write = (file: Deno.FsFile, bytes: Uint8Array) => {
      if (!failNext) return writeAll(file, bytes);
      failNext = false;
      return Promise.reject(Object.assign(new Error("Input/output error"), { code: "EIO" }));
    };
    let fatal = 0;
    const { store } = await openReplayed(dir, { write, onFatal: () => fatal++ });
    await store.append([makeEvent(1)]);
    failNext = true;
    await assert.rejects(store.append([makeEvent(2)]), WriteFailedError);
    assert.deepEqual(seqs(await store.append([makeEvent(3)])), [2]);
    assert.equal(fatal, 0, "a rolled-back write must not stop the process");
    await store.close();
  });
});

Deno.test("a failed sync rejects with StoreFailedError, calls onFatal exactly once and refuses every later append and roll", async () => {
  await withTempDir(async (dir) => {
    const ioError = new Error("Injected fdatasync EIO");
    let failing = false;
    let syncs = 0;
    const sync = (file: Deno.FsFile) => {
      syncs++;
      return failing ? Promise.reject(ioError) : file.syncData();
    };
    const fatal: unknown[] = [];
    const { store } = await openReplayed(dir, { sync, onFatal: (error) => fatal.push(error) });
    const acked = await store.append([makeEvent(1)]);

    failing = true;
    const outcomes = await Promise.allSettled([1, 2, 3].map((i) => store.append([makeEvent(i)])));
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.reason instanceof StoreFailedError, String(outcome.reason));
    }
    assert.deepEqual(fatal, [ioError]);
    const syncsAtFailure = syncs;

    failing = false;
    await assert.rejects(store.append([makeEvent(4)]), StoreFailedError);
    await assert.rejects(store.roll(), StoreFailedError);
    assert.equal(fatal.length, 1, "onFatal was called again");
    assert.equal(syncs, syncsAtFailure, "a failed sync was retried");
    assert.equal(store.lastSeq, 1);
    await store.close();

    const reopened = await openReplayed(dir);
    assert.deepEqual(reopened.events, acked);
    await reopened.store.close();
  });
});

Deno.test("a small segmentMaxBytes rolls the log into several segments that replay every event once, in order", async () => {
  await withTempDir(async (dir) => {
    const { store } = await openReplayed(dir, { segmentMaxBytes: 1024 });
    const acked: StoredEvent[] = [];
    for (let n = 1; n <= 30; n++) acked.push(...await store.append([makeEvent(n)]));
    // A concurrent burst shares one batch, so a segment may outgrow the limit but never splits it.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.append([makeEvent(31 + i)])),
    );
    acked.push(...burst.flat());
    await store.close();

    const segments = await listSegments(dir);
    assert.ok(segments.length >= 5, `only ${segments.length} segments for ~15 KB`);
    let expectedFirst = 1;
    for (const segment of segments) {
      assert.equal(segment.first, expectedFirst, `${segment.name} does not continue the sequence`);
      const lines = (await Deno.readTextFile(segment.path)).split("\n")
        .filter((line) =>
          line !== "" && !line.startsWith('{"log_format"') && !line.startsWith('{"commit"')
        );
      expectedFirst += lines.length;
    }
    assert.equal(expectedFirst, 51);

    const reopened = await openReplayed(dir, { segmentMaxBytes: 1024 });
    assert.deepEqual(seqs(reopened.events), Array.from({ length: 50 }, (_, i) => i + 1));
    assert.deepEqual(reopened.events, acked);
    assert.deepEqual(seqs(await reopened.store.append([makeEvent(51)])), [51]);
    await reopened.store.close();
  });
});
