import { crc32 } from "node:zlib";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const CLOSE_BRACE = encoder.encode("}");
/** Every line ends with `,"crc":"xxxxxxxx"}`: the CRC-32 of the line as if that member were absent. */
const CRC_SUFFIX_LENGTH = ',"crc":"00000000"}'.length;

/** A line that does not decode: torn, damaged, or not the record expected. */
export class CorruptRecordError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "CorruptRecordError";
  }
}

/** Encodes a JSON object (or its JSON text) as one self-checking line, newline included. */
export function encodeLine(record: object | string): Uint8Array {
  const json = typeof record === "string" ? record : JSON.stringify(record);
  const crc = crc32(json).toString(16).padStart(8, "0");
  return encoder.encode(`${json.slice(0, -1)},"crc":"${crc}"}\n`);
}

/**
 * Decodes one line (without its newline), checking its checksum; the crc member is removed.
 * `text` is the line already decoded as UTF-8, when the caller has it.
 */
export function decodeLine(line: Uint8Array, text?: string): Record<string, unknown> {
  if (line.length <= CRC_SUFFIX_LENGTH) throw new CorruptRecordError("Record is too short");
  const bodyEnd = line.length - CRC_SUFFIX_LENGTH;
  const expected = checksumOf(line, bodyEnd);
  if (expected < 0) throw new CorruptRecordError("Record has no checksum");
  const actual = crc32(CLOSE_BRACE, crc32(line.subarray(0, bodyEnd)));
  if (actual !== expected) throw new CorruptRecordError("Checksum mismatch");
  let record: unknown;
  try {
    // Parsing the line without its crc member spares a `delete`, which would slow the object.
    const body = text === undefined
      ? decoder.decode(line.subarray(0, bodyEnd))
      : text.slice(0, text.length - CRC_SUFFIX_LENGTH);
    record = JSON.parse(body + "}");
  } catch {
    throw new CorruptRecordError("Record is not valid UTF-8 JSON");
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new CorruptRecordError("Record is not a JSON object");
  }
  return record as Record<string, unknown>;
}

const SUFFIX_HEAD = encoder.encode(',"crc":"');

/** The checksum in a line's `,"crc":"xxxxxxxx"}` suffix starting at `at`, or -1 if malformed. */
function checksumOf(line: Uint8Array, at: number): number {
  for (let i = 0; i < SUFFIX_HEAD.length; i++) if (line[at + i] !== SUFFIX_HEAD[i]) return -1;
  let value = 0;
  for (let i = at + SUFFIX_HEAD.length; i < at + SUFFIX_HEAD.length + 8; i++) {
    const c = line[i];
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  const end = at + SUFFIX_HEAD.length + 8;
  return line[end] === 0x22 && line[end + 1] === 0x7d ? value : -1;
}

/**
 * The JSON text of a line's last member before the checksum (such as `data`), decoded on its own
 * so the string does not keep a larger buffer alive. The member must come after only scalar
 * members, which makes its first `,"key":` the member itself. Undefined if there is none.
 */
export function lastMemberText(line: Uint8Array, key: string): string | undefined {
  const marker = encoder.encode(`,"${key}":`);
  const end = line.length - CRC_SUFFIX_LENGTH;
  search: for (
    let at = line.indexOf(marker[0]);
    at !== -1 && at < end;
    at = line.indexOf(marker[0], at + 1)
  ) {
    for (let i = 1; i < marker.length; i++) if (line[at + i] !== marker[i]) continue search;
    return decoder.decode(line.subarray(at + marker.length, end));
  }
  return undefined;
}
