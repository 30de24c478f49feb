import { CorruptRecordError, decodeReplayed } from "./event_codec.ts";
import type { ReplayedEvent } from "../event_store.ts";
import { readLines } from "./line_reader.ts";
import type { Segment } from "./segments.ts";

/** One problem in the log: `fatal` ones make startup refuse; others it works around. */
export interface Damage {
  file: string;
  line: number;
  offset: number;
  problem: string;
  fatal: boolean;
}

/** Where the last segment's torn tail starts (startup cuts the file there), and why. */
export interface TornTail {
  path: string;
  offset: number;
  reason: string;
}

/** What a walk found. */
export interface WalkResult {
  /** The highest sequence number in the log (0 if none). */
  lastSeq: number;
  /** Events handed to onEvent (those after afterSeq). */
  delivered: number;
  /** The length of the last segment without its torn tail. */
  activeLength: number;
  /** The last segment's torn tail, when it has one. */
  torn?: TornTail;
}

/** How to walk: what the snapshot covers, where events go, what to do with damage. */
export interface WalkOptions {
  /** The seq of the snapshot startup loads (0: none): segments it wholly covers are not needed. */
  afterSeq: number;
  /** Receives each event after afterSeq, in order, with its line's bytes. */
  onEvent?: (event: ReplayedEvent, line: Uint8Array) => void;
  /** Receives each problem; startup throws on a fatal one, verify collects them all. */
  onDamage: (damage: Damage) => void;
  /** Also reads the segments the snapshot covers (verify does; their damage is not fatal). */
  readCovered?: boolean;
}

/**
 * The one reading of the log that startup, `verify` and compaction share, so they judge a data
 * directory alike: checksums, sequence inside and between segments, a beginning that the
 * snapshot must cover, and a torn tail (damaged records after the last good one of the last
 * segment: what a crash mid-append leaves), which is the only damage that is not fatal.
 */
export async function walkSegments(
  segments: readonly Segment[],
  options: WalkOptions,
): Promise<WalkResult> {
  const { afterSeq } = options;
  const result: WalkResult = { lastSeq: 0, delivered: 0, activeLength: 0 };
  let previous: Segment | undefined;
  for (const [index, segment] of segments.entries()) {
    const next = segments[index + 1];
    const covered = next !== undefined && next.first - 1 <= afterSeq;
    const report = covered ? notNeeded(options.onDamage) : options.onDamage;
    const first = (problem: string) =>
      report({ file: segment.path, line: 1, offset: 0, problem, fatal: true });
    if (covered && !options.readCovered) {
      result.lastSeq = next.first - 1;
      previous = undefined;
      continue;
    }
    // After a compacted segment (or one not read) only "later" can be checked, not "next".
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
    }, { next, tornIsOk: isLast });
    previous = segment;
    if (covered) {
      // As startup sees it: the snapshot ends here, whatever this segment held.
      result.lastSeq = next.first - 1;
      previous = undefined;
    }
    if (isLast) {
      result.activeLength = read.torn?.offset ?? read.end;
      if (read.torn !== undefined) {
        result.torn = { path: segment.path, offset: read.torn.offset, reason: read.torn.problem };
        for (const found of read.tornDamage) {
          report({
            ...found,
            fatal: false,
            problem: `${found.problem} (a torn last record: startup cuts it off)`,
          });
        }
      }
    }
  }
  return result;
}

/** Damage in a segment the snapshot covers does not stop startup, which does not read it. */
function notNeeded(onDamage: (damage: Damage) => void): (damage: Damage) => void {
  return (damage) =>
    onDamage({
      ...damage,
      fatal: false,
      problem: `${damage.problem} (the snapshot covers this segment: startup does not read it)`,
    });
}

/** What walkSegment read: where the lines end, and a torn tail if one was allowed and found. */
export interface SegmentRead {
  end: number;
  /** The first damaged record of the torn tail. */
  torn?: Damage;
  /** Every damaged record of the torn tail. */
  tornDamage: Damage[];
}

/** Where a segment sits and what its reader does between chunks. */
export interface SegmentContext {
  /** The segment after this one: a compacted segment's seqs stay below its first. */
  next?: Segment;
  /** The last segment may end in a torn tail. */
  tornIsOk?: boolean;
  /** Runs after each chunk of lines, for a caller that writes as it reads. */
  afterChunk?: () => Promise<void>;
}

/**
 * Reads one segment's records in order, checking each checksum and seq (gap-free, or only rising
 * and below `next` in a compacted segment). Damaged records after the last good one are returned
 * as a torn tail when `tornIsOk` (the last segment); all other damage goes to onDamage as fatal.
 */
export async function walkSegment(
  segment: Segment,
  onDamage: (damage: Damage) => void,
  onEvent: (event: ReplayedEvent, line: Uint8Array) => void,
  { next, tornIsOk = false, afterChunk }: SegmentContext = {},
): Promise<SegmentRead> {
  let expected = segment.first;
  // Damaged records not yet followed by a good one: a torn tail if nothing good follows.
  let pending: Damage[] = [];
  const damage = (line: number, offset: number, problem: string): Damage => ({
    file: segment.path,
    line,
    offset,
    problem,
    fatal: true,
  });
  const file = await Deno.open(segment.path, { read: true });
  try {
    const { end, rest, lines } = await readLines(file, (line, offset, lineNumber, text) => {
      let event: ReplayedEvent;
      try {
        event = decodeReplayed(line, text);
      } catch (error) {
        if (!(error instanceof CorruptRecordError)) throw error;
        pending.push(damage(lineNumber, offset, error.message));
        return;
      }
      // After damaged records the seq resumes wherever the next good record is.
      const resync = pending.length > 0;
      if (resync) {
        for (const found of pending) onDamage(found);
        pending = [];
      }
      const inOrder = segment.compacted || resync
        ? event.seq >= expected && (next === undefined || event.seq < next.first)
        : event.seq === expected;
      if (!inOrder) {
        onDamage(
          damage(lineNumber, offset, `sequence ${event.seq} where ${expected} was expected`),
        );
      }
      expected = event.seq + 1;
      onEvent(event, line);
    }, afterChunk);
    if (rest.length > 0) pending.push(damage(lines + 1, end, "Record has no newline"));
    if (tornIsOk) return { end, torn: pending[0], tornDamage: pending };
    for (const found of pending) onDamage(found);
    return { end, tornDamage: [] };
  } finally {
    file.close();
  }
}
