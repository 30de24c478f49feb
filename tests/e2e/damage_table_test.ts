/**
 * The damage table: for each kind of damage, `deno task verify` and the real server's startup
 * give the same answer (both refuse, naming the same problem, or both start, both warning).
 */
import assert from "node:assert/strict";
import { LOG_DIR, segmentName, SNAPSHOT_DIR } from "../../src/store/jsonl/data_dir_layout.ts";
import { encodeEvent } from "../../src/store/jsonl/event_codec.ts";
import { writeSnapshot } from "../../src/store/jsonl/snapshot_file.ts";
import type { StoredEvent } from "../../src/store/event_store.ts";
import { concat } from "../../src/lib/bytes.ts";
import { runVerify } from "../support/data_dir.ts";
import { created } from "../support/events.ts";
import { damageLine, writeSegment, writeStoreLog } from "../support/log_fixtures.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";

const segmentPath = (dir: string, first: number) => `${dir}/${LOG_DIR}/${segmentName(first)}`;

const TABLE: { damage: string; refused: boolean; build(dir: string): Promise<void> }[] = [
  {
    damage: "a torn tail (half a last record)",
    refused: false,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      const half = encodeEvent({ ...created(4), seq: 4 } as StoredEvent).subarray(0, 90);
      await Deno.writeFile(segmentPath(dir, 1), half, { append: true });
    },
  },
  {
    damage: "a torn batch (zeros, then records no commit line follows)",
    refused: false,
    build: async (dir) => {
      await writeStoreLog(dir, 3);
      const records = [4, 5].map((seq) => encodeEvent({ ...created(seq), seq } as StoredEvent));
      const tail = concat([new Uint8Array(4096), ...records]);
      await Deno.writeFile(segmentPath(dir, 1), tail, { append: true });
    },
  },
  {
    damage: "a bit flip mid-file (in a batch later commits follow)",
    refused: true,
    build: async (dir) => {
      await writeStoreLog(dir, 5);
      await damageLine(dir, 1, 4); // header, event 1, commit 1, event 2
    },
  },
  {
    damage: "a seq gap inside a segment",
    refused: true,
    build: (dir) => writeSegment(dir, 1, [1, 2, 4, 5]),
  },
  {
    damage: "a seq gap between segments",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 5, [5, 6]);
    },
  },
  {
    damage: "a missing segment",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 3, [3, 4]);
      await writeSegment(dir, 5, [5, 6]);
      await Deno.remove(segmentPath(dir, 3));
    },
  },
  {
    damage: "a duplicated segment (a copy under a later name)",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 3, [3, 4]);
      await Deno.copyFile(segmentPath(dir, 3), segmentPath(dir, 5));
    },
  },
  {
    damage: "a bit flip in a segment the snapshot covers (the feed still serves its events)",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3]);
      await writeSegment(dir, 4, [4, 5]);
      await writeSnapshot(dir, 3, []);
      await damageLine(dir, 1, 2);
    },
  },
  {
    damage: "a segment both snapshots cover before a seq gap (an interrupted compaction's)",
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
    damage: "a seq gap between segments only the newest snapshot covers",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2]);
      await writeSegment(dir, 5, [5, 6]);
      await writeSegment(dir, 7, [7]);
      await writeSnapshot(dir, 3, []);
      await writeSnapshot(dir, 6, []);
    },
  },
  {
    damage: "a truncated snapshot, the whole log behind it",
    refused: false,
    build: async (dir) => {
      await writeSegment(dir, 1, [1, 2, 3, 4]);
      await truncatedSnapshot(dir, 3);
    },
  },
  {
    damage: "a truncated snapshot, the log's beginning compacted away",
    refused: true,
    build: async (dir) => {
      await writeSegment(dir, 4, [4, 5]);
      await truncatedSnapshot(dir, 3);
    },
  },
];

/** A snapshot of the state after `seq` cut in half. */
async function truncatedSnapshot(dir: string, seq: number): Promise<void> {
  const { path } = await writeSnapshot(dir, seq, []);
  const bytes = await Deno.readFile(path);
  await Deno.writeFile(path, bytes.subarray(0, bytes.length >> 1));
  assert.ok(path.startsWith(`${dir}/${SNAPSHOT_DIR}/`));
}

/** How the real server's startup judged a data directory. */
async function startup(dir: string): Promise<{ refusal?: string; warnings: string[] }> {
  let server;
  try {
    server = await startServer({ dataDir: dir });
  } catch (error) {
    return { refusal: (error as Error).message, warnings: [] };
  }
  const { stdout } = await server.stop();
  const warnings = stdout.split("\n").filter((line) => line.includes('"level":"warn"'));
  return { warnings };
}

for (const { damage, refused, build } of TABLE) {
  Deno.test(`verify and startup agree on ${damage}: ${refused ? "both refuse" : "both start, warning"}`, async () => {
    const dir = await makeDataDir();
    try {
      await build(dir);
      const verify = await runVerify(dir);
      const lines = verify.stdout.split("\n");
      const fatal = lines.filter((line) => line.startsWith("DAMAGE: "));
      const warned = lines.filter((line) => line.startsWith("warning: "));
      const started = await startup(dir);
      assert.equal(verify.code === 1, refused, `verify:\n${verify.stdout}${verify.stderr}`);
      assert.equal(started.refusal !== undefined, refused, started.refusal ?? "it started");
      if (refused) {
        // Startup's reason is verify's first DAMAGE line: problem, file, line and byte offset.
        const [, where, problem] = /^DAMAGE: (.*?): (.*)$/.exec(fatal[0])!;
        assert.ok(started.refusal!.includes(problem), `${started.refusal}\nlacks: ${problem}`);
        const [, file, place] = /^(.*?)((?: line \d+ \(byte offset \d+\))?)$/.exec(where)!;
        assert.ok(started.refusal!.includes(file), `${started.refusal}\nlacks: ${file}`);
        assert.ok(started.refusal!.includes(place), `${started.refusal}\nlacks: ${place}`);
        // Damage is an I/O refusal (74), as for an unreadable file; verify's 1 means "refuses".
        assert.match(started.refusal!, /exited with code 74 /);
      } else {
        assert.ok(warned.length > 0, `verify did not warn:\n${verify.stdout}`);
        assert.ok(started.warnings.length > 0, "startup did not warn");
      }
    } finally {
      await removeDir(dir);
    }
  });
}
