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

/** Encodes a JSON object as one self-checking line, newline included. */
export function encodeLine(record: object): Uint8Array {
  const json = JSON.stringify(record);
  const crc = crc32(json).toString(16).padStart(8, "0");
  return encoder.encode(`${json.slice(0, -1)},"crc":"${crc}"}\n`);
}

/** Decodes one line (without its newline), checking its checksum; the crc member is removed. */
export function decodeLine(line: Uint8Array): Record<string, unknown> {
  if (line.length <= CRC_SUFFIX_LENGTH) throw new CorruptRecordError("Record is too short");
  const bodyEnd = line.length - CRC_SUFFIX_LENGTH;
  const suffix = String.fromCharCode(...line.subarray(bodyEnd));
  const match = /^,"crc":"([0-9a-f]{8})"\}$/.exec(suffix);
  if (match === null) throw new CorruptRecordError("Record has no checksum");
  const actual = crc32(CLOSE_BRACE, crc32(line.subarray(0, bodyEnd)));
  if (actual !== parseInt(match[1], 16)) throw new CorruptRecordError("Checksum mismatch");
  let record: unknown;
  try {
    record = JSON.parse(decoder.decode(line));
  } catch {
    throw new CorruptRecordError("Record is not valid UTF-8 JSON");
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new CorruptRecordError("Record is not a JSON object");
  }
  delete (record as Record<string, unknown>).crc;
  return record as Record<string, unknown>;
}
