import type { ReplayedEvent } from "../event_store.ts";
import type { Segment } from "./segments.ts";
import { CorruptLogError } from "../store_errors.ts";
import { walkSegments } from "./segment_walk.ts";

/** What a replay found. */
export interface ReplayResult {
  /** The highest sequence number in the log (0 if none). */
  lastSeq: number;
  /** Events handed over (those after the snapshot). */
  delivered: number;
  /** The length of the last segment after any torn tail was cut off. */
  activeLength: number;
}

/**
 * Startup's reading of the log: walks the segments (segment_walk.ts, as `verify` does) and hands
 * over events after `afterSeq`; throws CorruptLogError on the first fatal damage, and cuts off
 * the last segment's torn tail with a warning.
 */
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
  const torn = result.torn;
  if (torn !== undefined) {
    const file = await Deno.open(torn.path, { read: true, write: true });
    try {
      const size = (await file.stat()).size;
      warn("Cut off a torn record at the end of the log", {
        file: torn.path,
        offset: torn.offset,
        bytes_dropped: size - torn.offset,
        reason: torn.reason,
      });
      await file.truncate(torn.offset);
      await file.sync();
    } finally {
      file.close();
    }
  }
  return {
    lastSeq: result.lastSeq,
    delivered: result.delivered,
    activeLength: result.activeLength,
  };
}
