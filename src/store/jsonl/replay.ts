import { CorruptRecordError, decodeReplayed } from "./event_codec.ts";
import type { ReplayedEvent } from "../event_store.ts";
import { readLines } from "./line_reader.ts";
import type { Segment } from "./segments.ts";
import { CorruptLogError } from "../store_errors.ts";

/** What a replay found. */
export interface ReplayResult {
  /** The highest sequence number in the log (0 if none). */
  lastSeq: number;
  /** Events handed over (those after the snapshot). */
  delivered: number;
  /** The length of the last segment after any torn tail was cut off. */
  activeLength: number;
}

interface Bad {
  line: number;
  offset: number;
  reason: string;
}

/**
 * Reads segments in order, verifying checksums and sequence numbers, and hands over events after
 * `afterSeq`. Segments wholly covered by the snapshot are skipped. Only the last segment may end
 * in a torn record, which is cut off with a warning; any other damage throws CorruptLogError.
 */
export async function replaySegments(
  segments: readonly Segment[],
  afterSeq: number,
  onEvent: (event: ReplayedEvent) => void,
  warn: (message: string, fields: Record<string, unknown>) => void,
): Promise<ReplayResult> {
  let lastSeq = 0;
  let delivered = 0;
  let activeLength = 0;
  let previousCompacted = true;
  for (const [index, segment] of segments.entries()) {
    const next = segments[index + 1];
    if (next !== undefined && next.first - 1 <= afterSeq) {
      lastSeq = next.first - 1;
      previousCompacted = true;
      continue;
    }
    const expectedFirst = previousCompacted
      ? segment.first > lastSeq
      : segment.first === lastSeq + 1;
    if (!expectedFirst) {
      throw new CorruptLogError(
        segment.path,
        1,
        0,
        `the segment starts at ${segment.first}, after ${lastSeq}`,
      );
    }
    if (index === 0 && segment.first > 1 && afterSeq < segment.first - 1) {
      throw new CorruptLogError(
        segment.path,
        1,
        0,
        "the log's beginning is missing and no snapshot covers it",
      );
    }
    const isLast = next === undefined;
    const file = await Deno.open(segment.path, { read: true, write: isLast });
    try {
      let expected = segment.first;
      let bad: Bad | null = null;
      const { end, rest, lines } = await readLines(file, (line, offset, lineNumber, text) => {
        let event: ReplayedEvent;
        try {
          event = decodeReplayed(line, text);
        } catch (error) {
          if (!(error instanceof CorruptRecordError)) throw error;
          bad ??= { line: lineNumber, offset, reason: error.message };
          return;
        }
        if (bad !== null) throw new CorruptLogError(segment.path, bad.line, bad.offset, bad.reason);
        const inOrder = segment.compacted
          ? event.seq >= expected && (next === undefined || event.seq < next.first)
          : event.seq === expected;
        if (!inOrder) {
          throw new CorruptLogError(
            segment.path,
            lineNumber,
            offset,
            `sequence ${event.seq} where ${expected} was expected`,
          );
        }
        expected = event.seq + 1;
        lastSeq = event.seq;
        if (event.seq > afterSeq) {
          delivered++;
          onEvent(event);
        }
      });
      const torn: Bad | null = bad ??
        (rest.length > 0
          ? { line: lines + 1, offset: end, reason: "Record has no newline" }
          : null);
      if (torn !== null && !isLast) {
        throw new CorruptLogError(segment.path, torn.line, torn.offset, torn.reason);
      }
      activeLength = end;
      if (torn !== null) {
        const size = (await file.stat()).size;
        warn("Cut off a torn record at the end of the log", {
          file: segment.path,
          offset: torn.offset,
          bytes_dropped: size - torn.offset,
          reason: torn.reason,
        });
        await file.truncate(torn.offset);
        await file.sync();
        activeLength = torn.offset;
      }
    } finally {
      file.close();
    }
    previousCompacted = segment.compacted;
  }
  return { lastSeq, delivered, activeLength };
}
