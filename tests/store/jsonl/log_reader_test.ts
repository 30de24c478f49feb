/** Reads of the live log at its head (the feed and webhook loops after each commit) and behind it. */
import assert from "node:assert/strict";
import { JsonlEventStore } from "../../../src/store/jsonl/jsonl_store.ts";
import { LogReader } from "../../../src/store/jsonl/log_reader.ts";
import { LOG_DIR, segmentName } from "../../../src/store/jsonl/data_dir_layout.ts";
import { created } from "../../support/events.ts";

Deno.test("reads at the head and behind it give every event after the seq, across a roll", async () => {
  const dir = await Deno.makeTempDir({ prefix: "log_reader_test_" });
  try {
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
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("when the active segment named by the position is gone, the directory is listed instead", async () => {
  const dir = await Deno.makeTempDir({ prefix: "log_reader_test_" });
  try {
    const store = await JsonlEventStore.open(dir);
    await store.replay(() => {});
    for (let i = 1; i <= 3; i++) await store.append([created(i)]);
    await store.close();
    const path = `${dir}/${LOG_DIR}/${segmentName(1)}`;
    const durableLength = (await Deno.stat(path)).size;
    const reader = new LogReader(dir);
    // As if compaction had replaced the file between the position and the read.
    const gone = `${dir}/${LOG_DIR}/${segmentName(0)}`;
    const position = { lastSeq: 3, activeFirst: 1, durableLength, activePath: gone };
    assert.deepEqual((await reader.read(position, 1, 100)).map((e) => e.seq), [2, 3]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
