import { decodeReplayed } from "./event_codec.ts";
import type { ReplayedEvent } from "../event_store.ts";
import { syncDirectory, writeAll, writeAtomically } from "../../lib/fs_util.ts";
import { concat } from "../../lib/bytes.ts";
import { readLines } from "./line_reader.ts";
import type { Segment } from "./segments.ts";
import { LOG_DIR, segmentName } from "./data_dir_layout.ts";

/**
 * Rewrites a closed segment keeping only the events `keep` accepts, byte for byte, as a
 * compacted segment; the original file is removed afterwards. Returns the number of events dropped.
 */
export async function compactSegment(
  dataDir: string,
  segment: Segment,
  keep: (event: ReplayedEvent) => boolean,
): Promise<number> {
  if (!(await hasDroppable(segment, keep))) return 0;
  let dropped = 0;
  const dir = `${dataDir}/${LOG_DIR}`;
  const source = await Deno.open(segment.path, { read: true });
  try {
    // Kept lines are written chunk by chunk, so memory does not grow with the segment.
    await writeAtomically(dir, segmentName(segment.first, true), async (out) => {
      let kept: Uint8Array[] = [];
      await readLines(source, (line, _offset, _lineNumber, text) => {
        // keep() reads only the envelope, so the data is not parsed.
        if (keep(decodeReplayed(line, text))) kept.push(line.slice(), NEWLINE);
        else dropped++;
      }, async () => {
        if (kept.length > 0) await writeAll(out, concat(kept));
        kept = [];
      });
    });
  } finally {
    source.close();
  }
  if (!segment.compacted) {
    await Deno.remove(segment.path);
    await syncDirectory(dir);
  }
  return dropped;
}

/** True when the segment holds an event that `keep` refuses (a first pass that writes nothing). */
async function hasDroppable(
  segment: Segment,
  keep: (event: ReplayedEvent) => boolean,
): Promise<boolean> {
  let found = false;
  const file = await Deno.open(segment.path, { read: true });
  try {
    await readLines(file, (line, _offset, _lineNumber, text) => {
      if (!found && !keep(decodeReplayed(line, text))) found = true;
    });
  } finally {
    file.close();
  }
  return found;
}

/** Removes a segment that snapshots fully cover. */
export async function removeSegment(dataDir: string, segment: Segment): Promise<void> {
  await Deno.remove(segment.path);
  await syncDirectory(`${dataDir}/${LOG_DIR}`);
}

const NEWLINE = new Uint8Array([0x0a]);
