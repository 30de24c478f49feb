/** Startup, `deno task verify` and compaction read the log through one walk: they judge alike. */
import assert from "node:assert/strict";
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { CompactionPolicy } from "../../../src/store/jsonl/compaction_policy.ts";
import { writeSnapshot } from "../../../src/store/jsonl/snapshot_file.ts";
import { verifyDataDir } from "../../../src/store/jsonl/verify_log.ts";
import { CorruptLogError } from "../../../src/store/store_errors.ts";
import { createLogger } from "../../../src/ops/log.ts";
import { runVerify } from "../../support/data_dir.ts";
import { damageLine, writeSegment } from "../../support/log_fixtures.ts";
import { ContractSource } from "../contract_source.ts";

/** Starts as the server does (newest snapshot, then the log); the error's message if it refuses. */
async function startup(dir: string): Promise<string | undefined> {
  const store = await JsonlEventStore.open(dir);
  const policy = new CompactionPolicy(
    store,
    new ContractSource(store),
    createLogger("error", () => {}),
    { snapshotEvery: 1e9, eraseWithinMs: 1e9 },
  );
  try {
    await policy.recover();
    return undefined;
  } catch (error) {
    if (error instanceof CorruptLogError) return error.message;
    throw error;
  } finally {
    await store.close();
  }
}

const cases: { name: string; refused: boolean; build(dir: string): Promise<void> }[] = [
  {
    name: "a gap in seq between two segments",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 5, [5]);
    },
  },
  {
    name: "a compacted log beginning that no snapshot covers",
    refused: true,
    build: async (dir) => {
      await writeSnapshot(dir, 3, []);
      await writeSegment(dir, 10, [10, 12], true);
    },
  },
  {
    name: "a compacted log beginning that the snapshot covers",
    refused: false,
    build: async (dir) => {
      await writeSnapshot(dir, 9, []);
      await writeSegment(dir, 10, [10, 12], true);
    },
  },
  {
    name: "a gap in seq inside a segment",
    refused: true,
    build: (dir) => writeSegment(dir, 1, [1, 2, 4]),
  },
  {
    name: "two segments that overlap",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      await writeSegment(dir, 3, [3, 4]);
    },
  },
  {
    name: "a damaged record before good ones",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      await damageLine(dir, 1, 2);
    },
  },
  {
    name: "a damaged last record of the last segment (a torn tail)",
    refused: false,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      await damageLine(dir, 1, 3);
    },
  },
  {
    name: "a damaged last record of an older segment",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      await writeSegment(dir, 4, [4]);
      await damageLine(dir, 1, 3);
    },
  },
  {
    name: "damage in a segment the snapshot covers (the feed still serves its events)",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      await writeSegment(dir, 4, [4]);
      await damageLine(dir, 1, 2);
      await writeSnapshot(dir, 3, []);
    },
  },
  {
    name: "a segment both snapshots cover before a gap (left by an interrupted compaction)",
    refused: false,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 5, [5, 6]);
      await writeSegment(dir, 7, [7]);
      await writeSnapshot(dir, 4, []);
      await writeSnapshot(dir, 6, []);
    },
  },
  {
    name: "a gap only the newest snapshot covers (the older one's replay needs it)",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 5, [5, 6]);
      await writeSegment(dir, 7, [7]);
      await writeSnapshot(dir, 3, []);
      await writeSnapshot(dir, 6, []);
    },
  },
];

for (const { name, refused, build } of cases) {
  Deno.test(`startup and verify agree on ${name}: ${refused ? "refused" : "accepted"}`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "segment_walk_test_" });
    try {
      await build(dir);
      const findings = await verifyDataDir(dir);
      const fatal = findings.filter((f) => f.fatal);
      const refusal = await startup(dir);
      assert.equal(refusal !== undefined, refused, `startup: ${refusal ?? "started"}`);
      assert.equal(fatal.length > 0, refused, `verify: ${JSON.stringify(findings)}`);
      // The reason startup gives is the first fatal finding of verify, word for word.
      if (refusal !== undefined) assert.ok(refusal.includes(fatal[0].problem), refusal);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("deno task verify exits 1 on a seq gap between segments and names the segment", async () => {
  const dir = await Deno.makeTempDir({ prefix: "segment_walk_test_" });
  try {
    await writeSegment(dir, 1, [1, 2]);
    await writeSegment(dir, 5, [5]);
    const result = await runVerify(dir);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /DAMAGE: .*00000000000000000005\.jsonl.*the segment starts at 5, after 2/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
