import type { ReplayedEvent } from "../event_store.ts";
import type { Segment } from "./segments.ts";
import { CorruptLogError } from "../store_errors.ts";
import { type TornTail, walkSegments } from "./segment_walk.ts";
import { tornTailPath } from "./data_dir_layout.ts";
import { io } from "../../lib/io_error.ts";

export interface ReplayResult {
  lastSeq: number;
  delivered: number;
  activeLength: number;
  /** The last segment's header: its length and unsynced_max_bytes (both 0: format 1). */
  headerLength: number;
  unsyncedMaxBytes: number;
}

/** Startup's reading of the log: walks the segments, hands on the events, cuts off a torn tail. */
export async function replaySegments(
  segments: readonly Segment[],
  afterSeq: number,
  onEvent: (event: ReplayedEvent) => void,
  warn: (message: string, fields: Record<string, unknown>) => void,
): Promise<ReplayResult> {
  const result = await walkSegments(segments, {
    afterSeq,
    onEvent,
    onDamage: (damage) => {
      if (damage.fatal) {
        throw new CorruptLogError(damage.file, damage.line, damage.offset, damage.problem);
      }
    },
  });
  if (result.torn !== undefined) await cutTornTail(result.torn, warn);
  return {
    lastSeq: result.lastSeq,
    delivered: result.delivered,
    activeLength: result.activeLength,
    headerLength: result.headerLength,
    unsyncedMaxBytes: result.unsyncedMaxBytes,
  };
}

/** Keeps the torn tail in a file beside the segment, then cuts the segment there (warning). */
async function cutTornTail(
  torn: TornTail,
  warn: (message: string, fields: Record<string, unknown>) => void,
): Promise<void> {
  const kept = tornTailPath(torn.path, torn.offset, Date.now());
  const file = await io(
    "opening",
    torn.path,
    () => Deno.open(torn.path, { read: true, write: true }),
  );
  try {
    const bytes = new Uint8Array(torn.bytes);
    await io("reading", torn.path, async () => {
      await file.seek(torn.offset, Deno.SeekMode.Start);
      for (let at = 0; at < bytes.length;) {
        const read = await file.read(bytes.subarray(at));
        if (read === null) break;
        at += read;
      }
    });
    await io("writing", kept, () => Deno.writeFile(kept, bytes));
    await io("syncing", kept, async () => {
      using copy = await Deno.open(kept, { read: true });
      await copy.sync();
    });
    await io("truncating", torn.path, () => file.truncate(torn.offset));
    await io("syncing", torn.path, () => file.sync());
  } finally {
    file.close();
  }
  warn("Cut off a torn tail at the end of the log", {
    file: torn.path,
    offset: torn.offset,
    bytes_dropped: torn.bytes,
    records_dropped: torn.records,
    kept_in: kept,
    reason: torn.reason,
  });
}
