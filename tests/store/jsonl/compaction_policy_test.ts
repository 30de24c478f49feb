/** Contract §6: snapshots bound replay, damaged snapshots fall back, compaction erases the deleted. */
import assert from "node:assert/strict";
import type { Customer } from "../../../src/domain/customer.ts";
import { createLogger } from "../../../src/ops/log.ts";
import {
  type CompactionOptions,
  CompactionPolicy,
} from "../../../src/store/jsonl/compaction_policy.ts";
import { CustomerProjection, type CustomerRecord } from "../../../src/read_model/projection.ts";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { CorruptLogError } from "../../../src/store/store_errors.ts";
import { listSegments } from "../../../src/store/jsonl/segments.ts";
import { listSnapshots } from "../../../src/store/jsonl/snapshot_file.ts";

const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const CTX = { actor: "persistence-test", requestId: "req-persistence" };
const MERGE = { metadata: { touched: "yes" } };

interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** One life of the service over a data directory: store, read model, service and persistence. */
interface Node {
  store: JsonlEventStore;
  projection: CustomerProjection;
  service: CustomerService;
  persistence: CompactionPolicy;
  logs: LogLine[];
}

/** Ids ascend across every node of one test, as ULIDs from one clock would. */
function idSource(): () => string {
  let n = 0;
  return () => `01JDQ8Z5K3${String(++n).padStart(16, "0")}`;
}

async function open(
  dir: string,
  newId: () => string,
  segmentMaxBytes?: number,
  policy: Partial<CompactionOptions> = {},
): Promise<Node> {
  const logs: LogLine[] = [];
  const log = createLogger("debug", (line) => logs.push(JSON.parse(line)));
  const store = await JsonlEventStore.open(dir, {
    warn: (message, fields) => log.warn(message, fields),
    segmentMaxBytes,
  });
  const projection = new CustomerProjection();
  const service = new CustomerService({ store, projection, clock: () => T0, newId });
  // The policy never fires on its own here: each test calls compact() where it wants one.
  const persistence = new CompactionPolicy(store, service.snapshots, log, {
    snapshotEvery: 1e9,
    eraseWithinMs: 1e9,
    ...policy,
  });
  return { store, projection, service, persistence, logs };
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "persistence_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function input(n: number, extra: Record<string, unknown> = {}) {
  return { name: `Kundin ${n}`, email: `kundin-${n}@example.com`, ...extra };
}

/** Creates customers 1..count; every third one with an idempotency key `key-<n>`. */
async function createMany(node: Node, from: number, count: number): Promise<Customer[]> {
  const created: Customer[] = [];
  for (let n = from; n < from + count; n++) {
    const key = n % 3 === 0 ? `key-${n}` : undefined;
    created.push((await node.service.create(input(n), CTX, key)).customer);
  }
  return created;
}

/** Flips one byte in the middle of a file, where a record line (not the header) sits. */
async function damage(path: string): Promise<void> {
  const bytes = await Deno.readFile(path);
  bytes[bytes.length >> 1] ^= 0x01;
  await Deno.writeFile(path, bytes);
}

/** Every regular file under dir, recursively. */
async function allFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await allFiles(path));
    else if (entry.isFile) found.push(path);
  }
  return found.sort();
}

/** The files under dir whose text contains needle. */
async function filesMentioning(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const path of await allFiles(dir)) {
    if ((await Deno.readTextFile(path)).includes(needle)) hits.push(path);
  }
  return hits;
}

/** Every line of every file under dir that contains needle. */
async function linesMentioning(dir: string, needle: string): Promise<string[]> {
  const lines: string[] = [];
  for (const path of await allFiles(dir)) {
    lines.push(...(await Deno.readTextFile(path)).split("\n").filter((l) => l.includes(needle)));
  }
  return lines;
}

Deno.test("compact() then recover() in a fresh instance restores the identical state and replays only the tail", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const a = await open(dir, newId);
    assert.deepEqual(await a.persistence.recover(), {
      snapshotSeq: 0,
      snapshotRecords: 0,
      eventsReplayed: 0,
    });
    const created = await createMany(a, 1, 12);
    for (const c of created.slice(0, 3)) await a.service.patch(c.id, MERGE, undefined, CTX);
    for (const [i, c] of created.slice(3, 5).entries()) {
      await a.service.replace(c.id, input(100 + i), "*", CTX);
    }
    for (const c of created.slice(9)) await a.service.delete(c.id, undefined, CTX);
    await a.persistence.compact();
    const snapshotSeq = a.store.lastSeq;
    const liveAtSnapshot = a.projection.size;
    // Keys 3, 6 and 9 stay live (12 is deleted): their records are in the snapshot too.
    const keysAtSnapshot = 3;

    const tail = await createMany(a, 13, 2);
    await a.service.patch(tail[0].id, MERGE, undefined, CTX);
    await a.service.delete(created[0].id, undefined, CTX);
    await a.service.replace(created[1].id, input(200), undefined, CTX);
    const state = a.projection.all();
    const lastSeq = a.store.lastSeq;
    assert.equal(lastSeq - snapshotSeq, 5);
    await a.store.close();

    const b = await open(dir, newId);
    const report = await b.persistence.recover();
    assert.deepEqual(report, {
      snapshotSeq,
      snapshotRecords: liveAtSnapshot + keysAtSnapshot,
      eventsReplayed: 5,
    });
    assert.deepEqual(b.projection.all(), state);
    assert.equal(b.service.appliedSeq, lastSeq);
    const again = await b.service.create(input(6), CTX, "key-6");
    assert.deepEqual(
      again,
      { customer: created[5], seq: lastSeq, text: undefined, replayed: true },
      "idempotency key lost",
    );
    const next = await b.service.create(input(300), CTX);
    assert.equal(b.store.lastSeq, lastSeq + 1, "the sequence does not continue after recovery");
    assert.deepEqual(b.service.get(next.customer.id), next.customer);
    await b.store.close();
  });
});

/** Two compactions with a delete between them, then one more write; returns the final state. */
async function twoSnapshots(dir: string, newId: () => string): Promise<CustomerRecord[]> {
  const a = await open(dir, newId);
  await a.persistence.recover();
  const created = await createMany(a, 1, 10);
  await a.persistence.compact();
  await a.service.delete(created[0].id, undefined, CTX);
  await a.service.patch(created[1].id, MERGE, undefined, CTX);
  await createMany(a, 11, 3);
  await a.persistence.compact();
  await a.service.patch(created[2].id, MERGE, undefined, CTX);
  const state = a.projection.all();
  await a.store.close();
  return state;
}

Deno.test("a damaged newest snapshot makes recover() fall back to the older one with a warning and the same state", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const state = await twoSnapshots(dir, newId);
    const [newest, older] = await listSnapshots(dir);
    assert.ok(older !== undefined, "two compactions should leave two snapshots");
    await damage(newest.path);

    const b = await open(dir, newId);
    const report = await b.persistence.recover();
    assert.equal(report.snapshotSeq, older.seq);
    assert.deepEqual(b.projection.all(), state);
    const warning = b.logs.find((line) => line.level === "warn");
    assert.ok(warning !== undefined, "no warning about the damaged snapshot");
    assert.ok(String(warning.error).includes(newest.path), "the warning does not name the file");
    await b.store.close();
  });
});

Deno.test("with every snapshot damaged and the log's beginning compacted away, recover() refuses instead of losing customers", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const state = await twoSnapshots(dir, newId);
    for (const snapshot of await listSnapshots(dir)) await damage(snapshot.path);
    assert.ok((await listSegments(dir))[0].first > 1, "precondition: compaction removed segments");

    const b = await open(dir, newId);
    try {
      const outcome = await b.persistence.recover().then(
        (report) =>
          `recovered ${b.projection.size} of ${state.length} customers: ${JSON.stringify(report)}`,
        (error) => error,
      );
      assert.ok(outcome instanceof CorruptLogError, `expected CorruptLogError, ${outcome}`);
    } finally {
      await b.store.close();
    }
  });
});

Deno.test("a damaged only snapshot makes recover() replay the full log with a warning and the same state", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const a = await open(dir, newId);
    await a.persistence.recover();
    const created = await createMany(a, 1, 8);
    await a.service.delete(created[7].id, undefined, CTX);
    await a.persistence.compact();
    await a.service.patch(created[0].id, MERGE, undefined, CTX);
    const state = a.projection.all();
    await a.store.close();

    const [only] = await listSnapshots(dir);
    await damage(only.path);
    const b = await open(dir, newId);
    const report = await b.persistence.recover();
    assert.equal(report.snapshotSeq, 0);
    assert.equal(report.snapshotRecords, 0);
    assert.ok(report.eventsReplayed >= 8, `only ${report.eventsReplayed} events replayed`);
    assert.deepEqual(b.projection.all(), state);
    assert.ok(b.logs.some((line) => line.level === "warn"), "no warning about the snapshot");
    await b.store.close();
  });
});

Deno.test("after delete and compact only the delete event mentions the deleted id and no line its data", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const a = await open(dir, newId);
    await a.persistence.recover();
    const victim = (await a.service.create(
      input(1, { name: "Erika Vergessen", phone: "+4915550199", metadata: { ref: "ERASE-ME" } }),
      CTX,
      "victim-key",
    )).customer;
    const others = await createMany(a, 2, 5);
    // The victim is in this snapshot and in closed segments, and gets more events afterwards.
    await a.persistence.compact();
    await a.service.patch(victim.id, { name: "Erika Vergessen-Neu" }, undefined, CTX);
    await createMany(a, 7, 2);
    assert.ok((await filesMentioning(dir, victim.id)).length > 0, "the scan cannot see the id");
    await a.service.delete(victim.id, undefined, CTX);
    await a.persistence.compact();
    const state = a.projection.all();
    await a.store.close();

    for (const needle of ["Vergessen", victim.email, "+4915550199", "ERASE-ME"]) {
      assert.deepEqual(await filesMentioning(dir, needle), [], `"${needle}" is still on disk`);
    }
    const mentions = await linesMentioning(dir, victim.id);
    assert.deepEqual(mentions.map((line) => JSON.parse(line).type), ["customer.deleted"]);
    const b = await open(dir, newId);
    await b.persistence.recover();
    assert.deepEqual(b.projection.all(), state);
    for (const other of others) assert.deepEqual(b.service.get(other.id), other);
    assert.equal(b.service.get(victim.id), undefined);
    await b.store.close();
  });
});

Deno.test("a delete acknowledged while a compaction runs stays deleted after recovery", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const a = await open(dir, newId);
    await a.persistence.recover();
    // Enough customers that writing the snapshot takes longer than one append and its roll.
    await Promise.all(Array.from({ length: 500 }, (_, i) => a.service.create(input(i), CTX)));
    await a.store.close();

    // A tiny segment limit closes a segment after every commit, as a busy log does at 64 MiB.
    const b = await open(dir, newId, 1);
    await b.persistence.recover();
    const victim = b.projection.all()[0];
    const compaction = b.persistence.compact();
    await b.service.delete(victim.id, undefined, CTX);
    const deleteSeq = b.store.lastSeq;
    await compaction;
    const done = b.logs.find((line) => line.msg === "compaction done");
    assert.ok(done !== undefined, "the compaction did not finish");
    assert.ok(
      Number(done.snapshot_seq) < deleteSeq,
      "precondition: the snapshot was taken before the delete",
    );
    await b.store.close();

    const c = await open(dir, newId);
    await c.persistence.recover();
    assert.equal(c.service.get(victim.id), undefined, "the acknowledged delete was lost");
    assert.equal(c.projection.size, 499);
    await c.store.close();
  });
});

Deno.test("an erasure deadline that falls while a compaction runs brings one more compaction, which erases the customer", async () => {
  await withTempDir(async (dir) => {
    const newId = idSource();
    const a = await open(dir, newId, 1);
    await a.persistence.recover();
    const victim = (await a.service.create(input(0, { name: "Erika Vergessen" }), CTX)).customer;
    await createMany(a, 1, 400);
    await a.store.close();

    // A segment per commit (as a busy log has many) makes the compaction slow (it rewrites each
    // closed segment), so the deadline of a delete made just after it started falls while it runs.
    const ERASE_WITHIN_MS = 20;
    const ended: number[] = [];
    const b = await open(dir, newId, 1, {
      eraseWithinMs: ERASE_WITHIN_MS,
      onOutcome: (error) => {
        assert.equal(error, undefined);
        ended.push(performance.now());
      },
    });
    await b.persistence.recover();
    b.service.addCommitListener((event) => b.persistence.noteCommit(event));
    b.persistence.startCompaction();
    await b.service.delete(victim.id, undefined, CTX);
    const deleted = performance.now();
    const deleteSeq = b.store.lastSeq;
    const until = performance.now() + 10_000;
    while (ended.length < 2 && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const done = b.logs.filter((line) => line.msg === "compaction done");
    assert.ok(done.length >= 1, "the first compaction did not finish");
    assert.ok(
      Number(done[0].snapshot_seq) < deleteSeq,
      "precondition: the first snapshot was taken before the delete",
    );
    assert.ok(
      ended[0] > deleted + ERASE_WITHIN_MS + 20,
      `precondition: the deadline fell while the first compaction ran (it ended ${
        Math.round(ended[0] - deleted)
      } ms after the delete)`,
    );
    assert.equal(done.length, 2, "no compaction followed the one the deadline fell in");
    assert.ok(Number(done[1].snapshot_seq) >= deleteSeq);
    assert.deepEqual(await filesMentioning(dir, "Vergessen"), [], "the deleted data is on disk");
    await b.persistence.settle();
    await b.store.close();
  });
});
