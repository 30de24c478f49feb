import { io } from "../../lib/io_error.ts";
import type { ReplayedEvent } from "../event_store.ts";
import { syncDirectory, writeAll, writeAtomically } from "../../lib/fs_util.ts";
import { ByteBuffer } from "../../lib/bytes.ts";
import { CorruptLogError } from "../store_errors.ts";
import type { Segment } from "./segments.ts";
import { type Damage, walkSegment } from "./segment_read.ts";
import { LOG_DIR, segmentName } from "./data_dir_layout.ts";

/** Rewrites a closed segment keeping only the events `keep` accepts; returns the count dropped. */
export async function compactSegment(
  dataDir: string,
  segment: Segment,
  keep: (event: ReplayedEvent) => boolean,
): Promise<number> {
  if (!(await hasDroppable(segment, keep))) return 0;
  let dropped = 0;
  const dir = `${dataDir}/${LOG_DIR}`;
  // Kept lines go through one reused buffer in chunks: memory does not grow with the segment.
  await writeAtomically(dir, segmentName(segment.first, true), async (out) => {
    const kept = new ByteBuffer();
    await walkSegment(segment, refuse, (event, line) => {
      // keep() reads only the envelope, so the data is neither parsed nor decoded.
      if (keep(event)) {
        kept.append(line);
        kept.append(NEWLINE);
      } else dropped++;
    }, {
      afterChunk: async () => {
        if (kept.bytes.length > 0) await writeAll(out, kept.bytes);
        kept.clear();
      },
      envelopeOnly: true,
    });
  });
  if (!segment.compacted) {
    await io("removing", segment.path, () => Deno.remove(segment.path));
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
  await walkSegment(segment, refuse, (event) => {
    if (!found && !keep(event)) found = true;
  }, { envelopeOnly: true });
  return found;
}

/** A closed segment holds no torn tail: any damage stops the compaction, naming the file. */
function refuse(damage: Damage): never {
  throw new CorruptLogError(damage.file, damage.line, damage.offset, damage.problem);
}

/** Removes a segment that snapshots fully cover. */
export async function removeSegment(dataDir: string, segment: Segment): Promise<void> {
  await io("removing", segment.path, () => Deno.remove(segment.path));
  await syncDirectory(`${dataDir}/${LOG_DIR}`);
}

const NEWLINE = new Uint8Array([0x0a]);
