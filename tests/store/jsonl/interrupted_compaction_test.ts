/**
 * A compaction killed at any step leaves a data directory the next start opens and the next
 * compaction finishes: no segment left behind, no erased customer's data left on disk.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../../src/ops/log.ts";
import { CompactionPolicy } from "../../../src/store/jsonl/compaction_policy.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { listSegments, type Segment } from "../../../src/store/jsonl/segments.ts";
import { verifyDataDir } from "../../../src/store/jsonl/verify_log.ts";

const CTX = { actor: "interrupted-compaction-test", requestId: "req-interrupted" };

/** One life of the service over a data directory, with small segments. */
async function start(dir: string, newId: () => string) {
  const warnings: string[] = [];
  const log = createLogger("debug", (line) => {
    const entry = JSON.parse(line);
    if (entry.level === "warn") warnings.push(entry.msg);
  });
  const store = await JsonlEventStore.open(dir, {
    segmentMaxBytes: 1024,
    warn: (message, fields) => log.warn(message, fields),
  });
  const projection = new CustomerProjection();
  const service = new CustomerService({ store, projection, clock: () => 0, newId });
  const policy = new CompactionPolicy(store, service.snapshots, log, {
    snapshotEvery: 1e9,
    eraseWithinMs: 1e9,
  });
  await policy.recover();
  return { store, projection, service, policy, warnings };
}

function idSource(): () => string {
  let n = 0;
  return () => `01JDQ8Z5K3${String(++n).padStart(16, "0")}`;
}

async function createMany(service: CustomerService, from: number, count: number) {
  const created = [];
  for (let n = from; n < from + count; n++) {
    const input = { name: `Kundin ${n}`, email: `kundin-${n}@example.com` };
    created.push((await service.create(input, CTX)).customer);
  }
  return created;
}

/** The names of the files in DATA_DIR/log whose text contains needle. */
async function logFilesMentioning(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/log`)) {
    const text = await Deno.readTextFile(`${dir}/log/${entry.name}`);
    if (text.includes(needle)) hits.push(entry.name);
  }
  return hits;
}

/**
 * Builds what a kill between the rename of a segment's compacted copy and the removal of its
 * original leaves: both files, in the middle of the log. Returns the deleted customer's email and
 * the original.
 */
async function crashAfterCompactedCopy(dir: string, newId: () => string) {
  const first = await start(dir, newId);
  const customers = await createMany(first.service, 1, 30);
  const gone = customers[15];
  await first.service.delete(gone.id, undefined, CTX);
  const originals = new Map<string, Uint8Array>();
  for (const segment of await listSegments(dir)) {
    originals.set(segment.path, await Deno.readFile(segment.path));
  }
  await first.policy.compact();
  const copies = (await listSegments(dir)).filter((s: Segment) => s.compacted);
  assert.equal(copies.length, 1, "one segment held the deleted customer's events");
  const original = copies[0].path.replace(".compacted.jsonl", ".jsonl");
  assert.ok(originals.has(original), "the copy is of a segment that existed before");
  const bytes = originals.get(original)!;
  await Deno.writeFile(original, bytes);
  await first.store.close();
  return { email: gone.email, original: { path: original, bytes } };
}

/** Two more lives, each compacting: the second drops every segment both snapshots cover. */
async function twoCompactions(dir: string, newId: () => string): Promise<void> {
  for (const from of [31, 61]) {
    const node = await start(dir, newId);
    await createMany(node.service, from, 30);
    await node.policy.compact();
    await node.store.close();
  }
}

Deno.test("an original a kill left beside its compacted copy is gone after the next compactions: the log opens, verify agrees, no erased byte stays", async () => {
  const dir = await Deno.makeTempDir({ prefix: "interrupted_compaction_test_" });
  try {
    const newId = idSource();
    const { email } = await crashAfterCompactedCopy(dir, newId);
    await twoCompactions(dir, newId);
    assert.deepEqual(await logFilesMentioning(dir, email), [], "the erased email is on disk");
    assert.deepEqual((await verifyDataDir(dir)).filter((f) => f.fatal), []);
    const again = await start(dir, newId);
    assert.equal(again.projection.size, 89);
    await again.store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a segment both snapshots cover left before a gap (as an interrupted compaction used to leave it): verify warns, startup removes it with a warning and starts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "interrupted_compaction_test_" });
  try {
    const newId = idSource();
    const { email, original } = await crashAfterCompactedCopy(dir, newId);
    await twoCompactions(dir, newId);
    // What the compaction used to leave: the original back once its copy was dropped.
    await Deno.writeFile(original.path, original.bytes);
    const findings = await verifyDataDir(dir);
    assert.deepEqual(findings.map((f) => [f.file, f.fatal]), [[original.path, false]]);
    assert.match(findings[0].problem, /startup removes it/);

    const node = await start(dir, newId);
    assert.deepEqual(node.warnings, ["Removed log segments an interrupted compaction left behind"]);
    assert.equal(node.projection.size, 89);
    await node.store.close();
    assert.deepEqual(await logFilesMentioning(dir, email), [], "the erased email is on disk");
    assert.deepEqual(await verifyDataDir(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the temp file of a snapshot or compacted copy a kill cut short is removed by the next compaction, with the erased data it held", async () => {
  const dir = await Deno.makeTempDir({ prefix: "interrupted_compaction_test_" });
  try {
    const newId = idSource();
    const first = await start(dir, newId);
    const [gone] = await createMany(first.service, 1, 30);
    await first.policy.compact();
    await first.store.close();
    // What a kill during writeAtomically leaves: the temp file, named as it names them.
    const [snapshot] = [...Deno.readDirSync(`${dir}/snapshots`)].map((entry) => entry.name);
    const [segment] = (await listSegments(dir)).map((s) => s.name);
    await Deno.copyFile(`${dir}/snapshots/${snapshot}`, `${dir}/snapshots/.${snapshot}.tmp`);
    await Deno.copyFile(`${dir}/log/${segment}`, `${dir}/log/.${segment}.tmp`);

    const second = await start(dir, newId);
    await second.service.delete(gone.id, undefined, CTX);
    await second.policy.compact();
    await second.store.close();
    const leftovers: string[] = [];
    for (const sub of ["log", "snapshots"]) {
      for (const entry of Deno.readDirSync(`${dir}/${sub}`)) {
        if (entry.name.endsWith(".tmp")) leftovers.push(`${sub}/${entry.name}`);
      }
    }
    assert.deepEqual(leftovers, []);
    const snapshots = [...Deno.readDirSync(`${dir}/snapshots`)].map((entry) =>
      Deno.readTextFileSync(`${dir}/snapshots/${entry.name}`)
    );
    assert.ok(!snapshots.some((text) => text.includes(gone.email)), "a snapshot holds the email");
    assert.deepEqual(await logFilesMentioning(dir, gone.email), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
