/** The non-event lines of log format 2: a segment's header and each group commit's line. */
import { CorruptRecordError, decodeLine, encodeLine, verifyLine } from "./checked_line.ts";

/** The writer syncs at least every this many bytes, so a power cut tears at most this many. */
export const UNSYNCED_MAX_BYTES = 256 * 1024;

const PREFIX = new TextEncoder().encode('{"log_format":');
const COMMIT_PREFIX = new TextEncoder().encode('{"commit":');

export interface SegmentHeader {
  format: number;
  /** Damage this close to the end of the newest segment is a torn batch. */
  unsyncedMaxBytes: number;
}

/** The header line (newline included) of a new segment. */
export function encodeSegmentHeader(unsyncedMaxBytes = UNSYNCED_MAX_BYTES): Uint8Array {
  return encodeLine({ log_format: 2, unsynced_max_bytes: unsyncedMaxBytes });
}

/** True when a segment's first line is a header (damaged or not), not an event. */
export function looksLikeHeader(line: Uint8Array): boolean {
  return PREFIX.every((byte, i) => line[i] === byte);
}

/** Decodes a header line (without newline); throws CorruptRecordError when it is damaged. */
export function decodeSegmentHeader(line: Uint8Array): SegmentHeader {
  const record = decodeLine(line);
  const format = record.log_format;
  const bound = record.unsynced_max_bytes;
  if (format !== 2 || !Number.isSafeInteger(bound) || (bound as number) <= 0) {
    throw new CorruptRecordError(`Segment header has log format "${format}", not 2`);
  }
  return { format, unsyncedMaxBytes: bound as number };
}

/** The JSON text of the line that ends a group commit at `lastSeq`, before its checksum. */
export function commitText(lastSeq: number): string {
  return `{"commit":${lastSeq}}`;
}

/** True for an intact commit line (without newline); a damaged one is damage like any record. */
export function isCommitLine(line: Uint8Array): boolean {
  if (!COMMIT_PREFIX.every((byte, i) => line[i] === byte)) return false;
  try {
    verifyLine(line);
    return true;
  } catch (error) {
    if (error instanceof CorruptRecordError) return false;
    throw error;
  }
}
