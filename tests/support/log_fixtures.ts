/** Event logs built on disk for damage tests: format-1 segments by hand, format 2 by the store. */
import { encodeEvent } from "../../src/store/jsonl/event_codec.ts";
import { LOG_DIR, segmentName } from "../../src/store/jsonl/data_dir_layout.ts";
import { JsonlEventStore } from "../../src/store/jsonl/jsonl_store.ts";
import type { StoredEvent } from "../../src/store/event_store.ts";
import { created } from "./events.ts";

/** Writes a format-1 segment (no header, no commit lines) holding events with these seqs. */
export async function writeSegment(dir: string, first: number, seqs: number[], compacted = false) {
  await Deno.mkdir(`${dir}/${LOG_DIR}`, { recursive: true });
  const lines = seqs.map((seq) => encodeEvent({ ...created(seq), seq } as StoredEvent));
  const bytes = new Uint8Array(lines.reduce((n, line) => n + line.length, 0));
  lines.reduce((at, line) => (bytes.set(line, at), at + line.length), 0);
  await Deno.writeFile(`${dir}/${LOG_DIR}/${segmentName(first, compacted)}`, bytes);
}

/** Flips a byte in the middle of a segment's `line`-th line (1-based). */
export async function damageLine(dir: string, first: number, line: number) {
  const path = `${dir}/${LOG_DIR}/${segmentName(first)}`;
  const bytes = await Deno.readFile(path);
  let start = 0;
  for (let i = 1; i < line; i++) start = bytes.indexOf(0x0a, start) + 1;
  bytes[start + 20] ^= 0x01;
  await Deno.writeFile(path, bytes);
}

/** Appends `batches` group commits of one event each through the store (format 2); closes it. */
export async function writeStoreLog(dir: string, batches: number): Promise<void> {
  const store = await JsonlEventStore.open(dir);
  await store.replay(() => {});
  for (let n = 1; n <= batches; n++) await store.append([created(n)]);
  await store.close();
}
