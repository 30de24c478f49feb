import { CorruptRecordError, decodeReplayed } from "./event_codec.ts";
import { verifyLine } from "./checked_line.ts";
import type { ReplayedEvent } from "../event_store.ts";
import { readLines } from "./line_reader.ts";
import type { Segment } from "./segments.ts";
import {
  decodeSegmentHeader,
  isCommitLine,
  looksLikeHeader,
  type SegmentHeader,
} from "./segment_header.ts";
import { io } from "../../lib/io_error.ts";

/** One problem in the log: `fatal` ones make startup refuse; others it works around. */
export interface Damage {
  file: string;
  line: number;
  offset: number;
  problem: string;
  fatal: boolean;
}

/** What walkSegment read: where the lines end, and a torn tail if one was allowed and found. */
export interface SegmentRead {
  end: number;
  size: number;
  /** The length of its header line (0: a format-1 segment without one). */
  headerLength: number;
  unsyncedMaxBytes: number;
  /** The first damaged record of the torn tail. */
  torn?: Damage;
  tornDamage: Damage[];
  /** Records (complete or not) from the torn tail's start to the end, good ones included. */
  tornRecords: number;
  /** A torn batch: damage within the header's bound of the end, good records after it. */
  tornBatch?: { unsyncedMaxBytes: number };
}

/** Where a segment sits and what its reader does between chunks. */
export interface SegmentContext {
  /** The segment after this one: a compacted segment's seqs stay below its first. */
  next?: Segment;
  tornIsOk?: boolean;
  afterChunk?: () => Promise<void>;
  /** Only the envelope is read (checksums still checked): events come with `dataJson` "". */
  envelopeOnly?: boolean;
  /** Only each line's checksum and seq are read (a snapshot covers the segment). */
  seqOnly?: boolean;
}

/**
 * Reads one segment's records in order, checking checksums and seqs. Damage at the last segment's
 * end, or within its unsynced bound (a torn batch, never acknowledged), is a torn tail; else fatal.
 */
export async function walkSegment(
  segment: Segment,
  onDamage: (damage: Damage) => void,
  onEvent: (event: ReplayedEvent, line: Uint8Array) => void,
  { next, tornIsOk = false, afterChunk, envelopeOnly = false, seqOnly = false }: SegmentContext =
    {},
): Promise<SegmentRead> {
  let expected = segment.first;
  // Damaged records not yet followed by a good one: a torn tail if nothing good follows.
  let pending: Damage[] = [];
  // A possible torn batch: at most its own commit line may follow the damage, as the last line.
  let batch:
    | { damage: Damage; records: number; commits: number; lastIsCommit: boolean; bound: number }
    | undefined;
  let header: SegmentHeader | undefined;
  let headerLength = 0;
  const damage = (line: number, offset: number, problem: string): Damage => ({
    file: segment.path,
    line,
    offset,
    problem,
    fatal: true,
  });
  const file = await io("reading", segment.path, () => Deno.open(segment.path, { read: true }));
  try {
    const size = (await io("reading", segment.path, () => file.stat())).size;
    const reading = readLines(
      file,
      (line, offset, lineNumber, text) => {
        if (batch !== undefined) {
          batch.lastIsCommit = isCommitLine(line);
          if (batch.lastIsCommit) batch.commits++;
          else batch.records++;
          return;
        }
        if (isCommitLine(line)) return;
        if (lineNumber === 1 && looksLikeHeader(line)) {
          try {
            header = decodeSegmentHeader(line);
            headerLength = line.length + 1;
          } catch (error) {
            if (!(error instanceof CorruptRecordError)) throw error;
            onDamage(damage(1, 0, error.message));
          }
          return;
        }
        let event: ReplayedEvent;
        try {
          event = (seqOnly ? seqOfLine(line) : undefined) ??
            decodeReplayed(line, text, envelopeOnly ? "envelope" : "decode");
        } catch (error) {
          if (!(error instanceof CorruptRecordError)) throw error;
          const found = damage(lineNumber, offset, error.message);
          const bound = header?.unsyncedMaxBytes ?? 0;
          if (tornIsOk && pending.length === 0 && bound > 0 && size - offset <= bound) {
            batch = { damage: found, records: 1, commits: 0, lastIsCommit: false, bound };
          } else pending.push(found);
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
      },
      afterChunk,
      { decode: !seqOnly },
    );
    const { end, rest, lines } = await io("reading", segment.path, () => reading);
    const unsyncedMaxBytes = header?.unsyncedMaxBytes ?? 0;
    const read = { end, size, headerLength, unsyncedMaxBytes };
    if (batch !== undefined) {
      const torn = batch.commits === 0 ||
        (batch.commits === 1 && batch.lastIsCommit && rest.length === 0);
      if (!torn) {
        onDamage(batch.damage);
        return { ...read, tornDamage: [], tornRecords: 0 };
      }
      if (rest.length > 0) batch.records++;
      return {
        ...read,
        torn: batch.damage,
        tornDamage: [batch.damage],
        tornRecords: batch.records,
        tornBatch: { unsyncedMaxBytes },
      };
    }
    if (rest.length > 0) pending.push(damage(lines + 1, end, "Record has no newline"));
    // Format 1 has no bound; in format 2 damage within it became a torn batch above.
    const first = pending[0];
    const inBound = header === undefined ||
      (first !== undefined && size - first.offset <= unsyncedMaxBytes);
    if (tornIsOk && inBound) {
      return { ...read, torn: first, tornDamage: pending, tornRecords: pending.length };
    }
    for (const found of pending) onDamage(found);
    return { ...read, tornDamage: [], tornRecords: 0 };
  } finally {
    file.close();
  }
}

const SEQ_HEAD = new TextEncoder().encode('{"seq":');

/** A line's seq from its leading `{"seq":<digits>,`, unparsed; undefined when not led so. */
function seqOfLine(line: Uint8Array): ReplayedEvent | undefined {
  for (let i = 0; i < SEQ_HEAD.length; i++) if (line[i] !== SEQ_HEAD[i]) return undefined;
  let seq = 0;
  let at = SEQ_HEAD.length;
  for (; at < line.length && line[at] >= 0x30 && line[at] <= 0x39 && at < 24; at++) {
    seq = seq * 10 + line[at] - 0x30;
  }
  if (at === SEQ_HEAD.length || line[at] !== 0x2c) return undefined;
  verifyLine(line);
  return { seq } as ReplayedEvent;
}
