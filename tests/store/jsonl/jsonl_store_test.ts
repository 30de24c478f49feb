/** The JSONL event store: the store contract in a real temp directory, then its own behaviour. */
import { LOG_DIR, segmentName } from "../../../src/store/jsonl/data_dir_layout.ts";
import { listSegments } from "../../../src/store/jsonl/segments.ts";
import assert from "node:assert/strict";
import { created, ulid, updated } from "../../support/events.ts";
import type { CustomerEvent } from "../../../src/domain/events.ts";
import { encodeEvent } from "../../../src/store/jsonl/event_codec.ts";
import type { EventMeta, StoredEvent } from "../../../src/store/event_store.ts";
import { JsonlEventStore, type JsonlStoreOptions } from "../../../src/store/jsonl/jsonl_store.ts";
import {
  CorruptLogError,
  LogTruncatedError,
  StoreFailedError,
  StoreLockedError,
} from "../../../src/store/store_errors.ts";
import { CompactionPolicy } from "../../../src/store/jsonl/compaction_policy.ts";
import { createLogger } from "../../../src/ops/log.ts";
import { eventStoreContract } from "../event_store_contract.ts";
import { writeAll } from "../../../src/lib/fs_util.ts";
import { ContractSource } from "../contract_source.ts";

/** The first (and in these tests only) segment of the log. */
const LOG_FILE = `${LOG_DIR}/${segmentName(1)}`;

type NewEvent = CustomerEvent & EventMeta;

/** The n-th test event: cycles through created, updated and deleted, with varied metadata. */
function makeEvent(n: number): NewEvent {
  const id = ulid(Math.floor(n / 3));
  const time = new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
  const meta = { actor: `user-${n % 4}`, request_id: `req-${n}` };
  const data = {
    id,
    name: `Kundin ${n} Jürgens`,
    email: `c${n}@example.com`,
    phone: n % 2 === 0 ? null : `+49 30 ${n}`,
    address: null,
    metadata: { n: String(n) },
    created_at: time,
    updated_at: time,
    version: (n % 3) + 1,
  };
  switch (n % 3) {
    case 0:
      return {
        type: "customer.created",
        id,
        version: 1,
        time,
        data,
        ...meta,
        idempotency_key: `idem-${n}`,
        request_hash: `hash-${n}`,
      };
    case 1:
      return { type: "customer.updated", id, version: 2, time, data, ...meta };
    default:
      return { type: "customer.deleted", id, version: 3, time, data: null, ...meta };
  }
}

function makeEvents(from: number, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => makeEvent(from + i));
}

/** Runs fn with a fresh temp directory and removes it afterwards. */
async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "jsonl_store_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Opens and replays the store, returning it with the replayed events and any warnings. */
async function openReplayed(dir: string, options: JsonlStoreOptions = {}) {
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];
  const store = await JsonlEventStore.open(dir, {
    warn: (message, fields) => warnings.push({ message, fields }),
    ...options,
  });
  const events: StoredEvent[] = [];
  // Replay leaves data as JSON text; parse it back to compare with what was appended.
  await store.replay(({ dataJson, ...event }) =>
    events.push({ ...event, data: dataJson === null ? null : JSON.parse(dataJson) } as StoredEvent)
  );
  return { store, events, warnings };
}

/** Writes count events through the store and closes it; returns what the store acknowledged. */
async function seedLog(
  dir: string,
  count: number,
  options: JsonlStoreOptions = {},
): Promise<StoredEvent[]> {
  const { store } = await openReplayed(dir, options);
  const stored = await store.append(makeEvents(1, count));
  await store.close();
  return stored;
}

function seqsOf(events: readonly StoredEvent[]): number[] {
  return events.map((event) => event.seq);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** The byte offset at which the given 1-based line starts. */
function byteOffsetOfLine(bytes: Uint8Array, line: number): number {
  let offset = 0;
  for (let i = 1; i < line; i++) offset = bytes.indexOf(0x0a, offset) + 1;
  return offset;
}

/** Yields to the event loop a few times so that anything able to settle has settled. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("appended events replay identically after reopening, with seq 1..N gap-free", async () => {
  await withTempDir(async (dir) => {
    const first = await openReplayed(dir);
    assert.equal(first.events.length, 0);
    assert.equal(first.store.lastSeq, 0);
    const acked: StoredEvent[] = [];
    acked.push(...await first.store.append(makeEvents(1, 3)));
    acked.push(...await first.store.append([makeEvent(4)]));
    acked.push(...await first.store.append(makeEvents(5, 6)));
    assert.deepEqual(seqsOf(acked), range(1, 10));
    assert.deepEqual(acked.map(({ seq: _, ...event }) => event), makeEvents(1, 10));
    assert.equal(first.store.lastSeq, 10);
    await first.store.close();

    const second = await openReplayed(dir);
    assert.deepEqual(second.events, acked);
    assert.equal(second.store.lastSeq, 10);
    assert.deepEqual(second.warnings, []);
    assert.deepEqual(seqsOf(await second.store.append([makeEvent(11)])), [11]);
    await second.store.close();
  });
});

Deno.test("concurrent appends share syncs and none resolves before its sync has returned", async () => {
  await withTempDir(async (dir) => {
    const N = 100;
    const path = `${dir}/${LOG_FILE}`;
    const gates: (() => void)[] = [];
    let syncCalls = 0;
    let durableSeq = 0; // highest seq on disk when a sync that has since returned began
    const sync = async (file: Deno.FsFile) => {
      syncCalls++;
      const onDisk = (await Deno.readTextFile(path)).trim().split("\n")
        .filter((line) =>
          line !== "" && !line.startsWith('{"log_format"') && !line.startsWith('{"commit"')
        );
      const highestWritten = onDisk.length === 0 ? 0 : JSON.parse(onDisk.at(-1)!).seq;
      await new Promise<void>((release) => gates.push(release));
      await file.syncData();
      durableSeq = Math.max(durableSeq, highestWritten);
    };
    const { store } = await openReplayed(dir, { sync });

    const resolved: number[] = [];
    const early: string[] = [];
    const appends = makeEvents(1, N).map((event) =>
      store.append([event]).then((stored) => {
        for (const { seq } of stored) {
          if (seq > durableSeq) early.push(`seq ${seq} resolved with durable seq ${durableSeq}`);
          resolved.push(seq);
        }
        return stored;
      })
    );

    while (resolved.length < N) {
      await settle();
      assert.equal(gates.length, 1, "exactly one sync is in flight");
      const before = resolved.length;
      await settle();
      assert.equal(resolved.length, before, "an append resolved while its sync was blocked");
      gates.shift()!();
      // The real fdatasync runs after the gate opens; under load it can take a while.
      for (let waited = 0; resolved.length === before && waited < 5000; waited += 5) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.ok(resolved.length > before, "releasing the sync resolved its appends");
    }

    const results = await Promise.all(appends);
    assert.deepEqual(early, []);
    assert.deepEqual(results.map(([event]) => event.seq), range(1, N));
    assert.deepEqual(resolved, range(1, N));
    assert.ok(syncCalls < N, `${syncCalls} syncs for ${N} appends`);
    assert.deepEqual(store.stats, { events: N, syncs: syncCalls });
    await store.close();

    const reopened = await openReplayed(dir);
    assert.deepEqual(reopened.events, results.flat());
    await reopened.store.close();
  });
});

Deno.test("a failing sync rejects its whole batch, refuses later appends and keeps only acked events", async () => {
  await withTempDir(async (dir) => {
    const ioError = new Error("Injected EIO");
    let failing = false;
    const sync = (file: Deno.FsFile) => failing ? Promise.reject(ioError) : file.syncData();
    const { store } = await openReplayed(dir, { sync });
    const acked = [...await store.append([makeEvent(1)]), ...await store.append(makeEvents(2, 2))];

    failing = true;
    const outcomes = await Promise.allSettled([
      store.append([makeEvent(4)]),
      store.append([makeEvent(5)]),
      store.append(makeEvents(6, 2)),
    ]);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.reason instanceof StoreFailedError);
      assert.equal(outcome.reason.cause, ioError);
    }
    failing = false;
    await assert.rejects(store.append([makeEvent(8)]), StoreFailedError);
    assert.equal(store.lastSeq, 3);
    await store.close();

    const reopened = await openReplayed(dir);
    assert.deepEqual(reopened.events, acked);
    assert.deepEqual(seqsOf(await reopened.store.append([makeEvent(4)])), [4]);
    await reopened.store.close();
  });
});

const TORN_TAILS: { kind: string; tail: (next: Uint8Array) => Uint8Array }[] = [
  { kind: "half a line without newline", tail: (next) => next.slice(0, next.length >> 1) },
  {
    kind: "last line with a bad checksum",
    tail: (next) => {
      const damaged = next.slice();
      damaged[next.length >> 1] ^= 0x04;
      return damaged;
    },
  },
  { kind: "trailing zero bytes", tail: () => new Uint8Array(4096) },
];

for (const { kind, tail } of TORN_TAILS) {
  Deno.test(`a torn tail (${kind}) is cut off with a warning and appends continue the sequence`, async () => {
    await withTempDir(async (dir) => {
      const path = `${dir}/${LOG_FILE}`;
      const acked = await seedLog(dir, 5);
      const intact = await Deno.readFile(path);
      const torn = tail(encodeEvent({ ...makeEvent(6), seq: 6 }));
      await Deno.writeFile(path, torn, { append: true });

      const { store, events, warnings } = await openReplayed(dir);
      assert.deepEqual(events, acked);
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0].fields.bytes_dropped, torn.length);
      assert.equal(warnings[0].fields.offset, intact.length);
      assert.deepEqual(
        await Deno.readFile(path),
        intact,
        "the file is cut back to the last record",
      );

      const [next] = await store.append([makeEvent(6)]);
      assert.equal(next.seq, 6);
      await store.close();

      const reopened = await openReplayed(dir);
      assert.deepEqual(reopened.events, [...acked, next]);
      assert.deepEqual(reopened.warnings, []);
      await reopened.store.close();
    });
  });
}

Deno.test("a damaged line followed by valid lines, beyond the unsynced bound of the end, fails replay naming line and byte offset", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/${LOG_FILE}`;
    // A 300-byte bound: line 3 on lies farther than that from the end (a torn batch could not).
    await seedLog(dir, 5, { unsyncedMaxBytes: 300 });
    const bytes = await Deno.readFile(path);
    const offset = byteOffsetOfLine(bytes, 3);
    const damaged = bytes.slice();
    damaged[offset + 20] ^= 0x01;
    await Deno.writeFile(path, damaged);

    const store = await JsonlEventStore.open(dir);
    const error = await store.replay(() => {}).catch((error) => error);
    assert.ok(error instanceof CorruptLogError, String(error));
    assert.match(error.message, new RegExp(`line 3 \\(byte offset ${offset}\\)`));
    assert.match(error.message, new RegExp(segmentName(1)));
    await assert.rejects(store.append([makeEvent(6)]), /Replay/);
    await store.close();
    assert.deepEqual(await Deno.readFile(path), damaged, "a damaged log is left untouched");
  });
});

Deno.test("a sequence gap followed by valid lines, beyond the unsynced bound of the end, fails replay as damage", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/${LOG_FILE}`;
    // A 300-byte bound: line 3 on lies farther than that from the end (a torn batch could not).
    await seedLog(dir, 5, { unsyncedMaxBytes: 300 });
    const bytes = await Deno.readFile(path);
    // Line 1 is the segment header: line 4 holds seq 3.
    const offset = byteOffsetOfLine(bytes, 4);
    const withoutThird = new Uint8Array([
      ...bytes.subarray(0, offset),
      ...bytes.subarray(byteOffsetOfLine(bytes, 5)),
    ]);
    await Deno.writeFile(path, withoutThird);

    const store = await JsonlEventStore.open(dir);
    await assert.rejects(
      store.replay(() => {}),
      (error) =>
        error instanceof CorruptLogError &&
        error.message.includes(`line 4 (byte offset ${offset})`) &&
        error.message.includes("sequence 4 where 3 was expected"),
    );
    await store.close();
  });
});

Deno.test("a second open of a locked directory fails naming the holder PID until the first closes", async () => {
  await withTempDir(async (dir) => {
    const first = await JsonlEventStore.open(dir);
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(
        JsonlEventStore.open(dir),
        (error) =>
          error instanceof StoreLockedError && error.message.includes(`process ${Deno.pid}`),
      );
    }
    await first.close();

    const second = await openReplayed(dir);
    assert.deepEqual(seqsOf(await second.store.append([makeEvent(1)])), [1]);
    await second.store.close();
  });
});

Deno.test("append before replay is rejected and writes nothing", async () => {
  await withTempDir(async (dir) => {
    const store = await JsonlEventStore.open(dir);
    await assert.rejects(store.append([makeEvent(1)]), /Replay the log before appending/);
    await store.close();
    assert.deepEqual([...Deno.readDirSync(`${dir}/${LOG_DIR}`)], [], "no segment was written");
  });
});

Deno.test("a writer with another unsynced bound never appends to a segment whose header states the old one", async () => {
  await withTempDir(async (dir) => {
    await seedLog(dir, 2, { unsyncedMaxBytes: 4096 });
    const { store } = await openReplayed(dir, { unsyncedMaxBytes: 8192 });
    await store.append([makeEvent(3)]);
    await store.close();
    const segments = (await listSegments(dir)).map((segment) => segment.first);
    assert.deepEqual(segments, [1, 3], "the third event went into the old segment");
    const header = (await Deno.readTextFile(`${dir}/${LOG_DIR}/${segmentName(3)}`)).split("\n")[0];
    assert.match(header, /"unsynced_max_bytes":8192/);
    const reopened = await openReplayed(dir, { unsyncedMaxBytes: 8192 });
    assert.deepEqual(seqsOf(reopened.events), [1, 2, 3]);
    await reopened.store.close();
  });
});

Deno.test("in format 2, damage beginning farther from the end than the unsynced bound is refused even with nothing good after it", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/${LOG_FILE}`;
    await seedLog(dir, 5, { unsyncedMaxBytes: 300 });
    const bytes = await Deno.readFile(path);
    // Zeros from line 4 (seq 3) to the end: far more than 300 bytes, so no power cut.
    const offset = byteOffsetOfLine(bytes, 4);
    bytes.fill(0, offset);
    await Deno.writeFile(path, bytes);
    const store = await JsonlEventStore.open(dir, { unsyncedMaxBytes: 300 });
    const error = await store.replay(() => {}).catch((error) => error);
    assert.ok(error instanceof CorruptLogError, String(error));
    assert.match(error.message, new RegExp(`line 4 \\(byte offset ${offset}\\)`));
    await store.close();
    assert.deepEqual(await Deno.readFile(path), bytes, "a refused log is left untouched");
  });
});

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
