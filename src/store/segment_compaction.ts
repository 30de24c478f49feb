import { decodeEvent } from "./event_codec.ts";
import type { StoredEvent } from "./event_store.ts";
import { syncDirectory, writeAll, writeAtomically } from "./fs_util.ts";
import { concat, readLines } from "./line_reader.ts";
import { LOG_DIR, type Segment, segmentName } from "./segments.ts";

/**
 * Rewrites a closed segment keeping only the events `keep` accepts, byte for byte, as a
 * compacted segment; the original file is removed afterwards. Returns the number of events dropped.
 */
export async function compactSegment(
  dataDir: string,
  segment: Segment,
  keep: (event: StoredEvent) => boolean,
): Promise<number> {
  const kept: Uint8Array[] = [];
  let dropped = 0;
  const file = await Deno.open(segment.path, { read: true });
  try {
    await readLines(file, (line) => {
      if (keep(decodeEvent(line))) kept.push(line.slice(), NEWLINE);
      else dropped++;
    });
  } finally {
    file.close();
  }
  if (dropped === 0) return 0;
  const dir = `${dataDir}/${LOG_DIR}`;
  await writeAtomically(
    dir,
    segmentName(segment.first, true),
    (out) => writeAll(out, concat(kept)),
  );
  if (!segment.compacted) {
    await Deno.remove(segment.path);
    await syncDirectory(dir);
  }
  return dropped;
}

/** Removes a segment that snapshots fully cover. */
export async function removeSegment(dataDir: string, segment: Segment): Promise<void> {
  await Deno.remove(segment.path);
  await syncDirectory(`${dataDir}/${LOG_DIR}`);
}

const NEWLINE = new Uint8Array([0x0a]);
