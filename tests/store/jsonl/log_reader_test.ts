/** Reads of the live log at its head (the feed and webhook loops after each commit) and behind it. */
import assert from "node:assert/strict";
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { LogReader } from "../../../src/store/jsonl/log_reader.ts";
import { LOG_DIR, segmentName } from "../../../src/store/jsonl/data_dir_layout.ts";
import { created } from "../../support/events.ts";

/** Runs `body` with a fresh temporary directory, removed afterwards. */
async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "log_reader_test_" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `count` creates, one commit each, to a new log in `dir`; resolves with its segment's path. */
async function writeLog(dir: string, count: number): Promise<string> {
  const store = await JsonlEventStore.open(dir);
  await store.replay(() => {});
  for (let i = 1; i <= count; i++) await store.append([created(i)]);
  await store.close();
  return `${dir}/${LOG_DIR}/${segmentName(1)}`;
}

Deno.test("reads at the head and behind it give every event after the seq, across a roll", () =>
  inTempDir(async (dir) => {
    const store = await JsonlEventStore.open(dir);
    await store.replay(() => {});
    for (let i = 1; i <= 3; i++) await store.append([created(i)]);
    await store.roll();
    for (let i = 4; i <= 6; i++) await store.append([created(i)]);
    const seqs = async (after: number) => (await store.readFrom(after, 100)).map((e) => e.seq);
    // At the head: only the active segment (from seq 4) is read.
    assert.deepEqual(await seqs(4), [5, 6]);
    assert.deepEqual(await seqs(3), [4, 5, 6]);
    // Behind it: the closed segment, then the active one.
    assert.deepEqual(await seqs(1), [2, 3, 4, 5, 6]);
    assert.deepEqual(await seqs(6), []);
    await store.close();
  }));

Deno.test("when the active segment named by the position is gone, the directory is listed instead", () =>
  inTempDir(async (dir) => {
    const path = await writeLog(dir, 3);
    const durableLength = (await Deno.stat(path)).size;
    const reader = new LogReader(dir);
    // As if compaction had replaced the file between the position and the read.
    const gone = `${dir}/${LOG_DIR}/${segmentName(0)}`;
    const position = { lastSeq: 3, activeFirst: 1, durableLength, activePath: gone };
    assert.deepEqual((await reader.read(position, 1, 100)).map((e) => e.seq), [2, 3]);
  }));

Deno.test("readers paging at their own positions each go on from where they stopped, not from the segment's start", () =>
  inTempDir(async (dir) => {
    const path = await writeLog(dir, 40);
    const text = await Deno.readTextFile(path);
    const position = { lastSeq: 40, activeFirst: 1, durableLength: text.length, activePath: path };
    const reader = new LogReader(dir);
    // Three readers (three webhook endpoints, say) take turns, each a page of 5 at a time.
    const at = [0, 3, 7];
    const page = async (r: number) => {
      const events = await reader.read(position, at[r], 5);
      assert.deepEqual(events.map((e) => e.seq), [1, 2, 3, 4, 5].map((n) => at[r] + n));
      at[r] = events.at(-1)!.seq;
    };
    for (let r = 0; r < 3; r++) await page(r);
    // Damage the first event's line: a reader that went back to the segment's start would fail.
    const first = text.indexOf("\n", text.indexOf('"seq":1,') - 200) + 1;
    await using file = await Deno.open(path, { write: true });
    await file.seek(first, Deno.SeekMode.Start);
    await file.write(new TextEncoder().encode("#"));
    for (let turn = 0; turn < 3; turn++) for (let r = 0; r < 3; r++) await page(r);
    assert.deepEqual(at, [20, 23, 27]);
    // The check does work: a reader with no cursor behind seq 20 reads from the start and fails.
    await assert.rejects(new LogReader(dir).read(position, 0, 5));
  }));
