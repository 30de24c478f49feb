import type { ReplayedEvent } from "../event_store.ts";
import type { Segment } from "./segments.ts";
import { type Damage, walkSegment } from "./segment_read.ts";

/** Where the last segment's torn tail starts (startup cuts the file there), and why. */
export interface TornTail {
  path: string;
  offset: number;
  reason: string;
  bytes: number;
  records: number;
}

export interface WalkResult {
  lastSeq: number;
  delivered: number;
  activeLength: number;
  /** The last segment's torn tail, when it has one. */
  torn?: TornTail;
  /** The last segment's header: its length and unsynced_max_bytes (both 0: format 1). */
  headerLength: number;
  unsyncedMaxBytes: number;
}

/** How to walk: what the snapshot covers, where events go, what to do with damage. */
export interface WalkOptions {
  /** The seq of the snapshot startup loads (0: none): only events after it are handed on. */
  afterSeq: number;
  /** Receives each event after afterSeq, in order, with its line's bytes. */
  onEvent?: (event: ReplayedEvent, line: Uint8Array) => void;
  /** Receives each problem; startup throws on a fatal one, verify collects them all. */
  onDamage: (damage: Damage) => void;
}

/**
 * The one reading of the log that startup, `verify` and compaction share, so they judge a data
 * directory alike; a torn tail of the last segment is the only damage that is not fatal.
 */
export async function walkSegments(
  segments: readonly Segment[],
  options: WalkOptions,
): Promise<WalkResult> {
  const { afterSeq, onDamage: report } = options;
  const result: WalkResult = {
    lastSeq: 0,
    delivered: 0,
    activeLength: 0,
    headerLength: 0,
    unsyncedMaxBytes: 0,
  };
  let previous: Segment | undefined;
  for (const [index, segment] of segments.entries()) {
    const next = segments[index + 1];
    // Its events are in the snapshot: only their checksums and seqs are read.
    const covered = next !== undefined && next.first - 1 <= afterSeq;
    const first = (problem: string) =>
      report({ file: segment.path, line: 1, offset: 0, problem, fatal: true });
    // After a compacted segment only "later" can be checked, not "next".
    const follows = previous === undefined || previous.compacted
      ? segment.first > result.lastSeq
      : segment.first === result.lastSeq + 1;
    if (!follows) first(`the segment starts at ${segment.first}, after ${result.lastSeq}`);
    if (index === 0 && segment.first > 1 && afterSeq < segment.first - 1) {
      first("the log's beginning is missing and no snapshot covers it");
    }
    const isLast = next === undefined;
    const read = await walkSegment(segment, report, (event, line) => {
      result.lastSeq = event.seq;
      if (event.seq > afterSeq) {
        result.delivered++;
        options.onEvent?.(event, line);
      }
    }, { next, tornIsOk: isLast, seqOnly: covered });
    previous = segment;
    if (isLast) {
      result.activeLength = read.torn?.offset ?? read.end;
      result.headerLength = read.headerLength;
      result.unsyncedMaxBytes = read.unsyncedMaxBytes;
      if (read.torn !== undefined) {
        const bytes = read.size - read.torn.offset;
        const records = read.tornRecords;
        result.torn = {
          path: segment.path,
          offset: read.torn.offset,
          reason: read.torn.problem,
          bytes,
          records,
        };
        const why = read.tornBatch === undefined
          ? "a torn last record"
          : `a torn last batch, within the ${read.tornBatch.unsyncedMaxBytes} bytes never synced`;
        for (const found of read.tornDamage) {
          report({
            ...found,
            fatal: false,
            problem: `${found.problem} (${why}: startup cuts off ${bytes} bytes, ${records} ` +
              `record(s))`,
          });
        }
      }
    }
  }
  return result;
}
