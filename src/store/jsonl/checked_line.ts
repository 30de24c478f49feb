import { crc32 } from "node:zlib";
import { decodeUtf8 } from "../../lib/utf8.ts";

/** The one encoder of the log's lines. */
export const encoder = new TextEncoder();
const CLOSE_BRACE = encoder.encode("}");
const SUFFIX_HEAD = encoder.encode(',"crc":"');
const HEX_DIGITS = encoder.encode("0123456789abcdef");
/** Every line ends with `,"crc":"xxxxxxxx"}`: the CRC-32 of the line without that member. */
export const CRC_SUFFIX_LENGTH = ',"crc":"00000000"}'.length;

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
  // Encoded once: the checksum is taken over these bytes, which the line then copies.
  const body = encoder.encode(json);
  const crc = crc32(body).toString(16).padStart(8, "0");
  const line = new Uint8Array(body.length + CRC_SUFFIX_LENGTH);
  line.set(body.subarray(0, body.length - 1));
  encoder.encodeInto(`,"crc":"${crc}"}\n`, line.subarray(body.length - 1));
  return line;
}

/** Encodes a JSON text as a line into `bytes` at `start` (lineRoom free); returns its end. */
export function encodeLineInto(json: string, bytes: Uint8Array, start: number): number {
  const { written } = encoder.encodeInto(json, bytes.subarray(start));
  return checksumInto(bytes, start, start + written);
}

/** Ends the JSON text at bytes[start, end) with its checksum and newline; returns the end. */
export function checksumInto(bytes: Uint8Array, start: number, end: number): number {
  const crc = crc32(bytes.subarray(start, end));
  let at = end - 1; // the closing brace: the suffix takes its place
  bytes.set(SUFFIX_HEAD, at);
  at += SUFFIX_HEAD.length;
  for (let shift = 28; shift >= 0; shift -= 4) bytes[at++] = HEX_DIGITS[(crc >>> shift) & 0xf];
  bytes[at++] = 0x22; // "
  bytes[at++] = 0x7d; // }
  bytes[at++] = 0x0a; // the newline
  return at;
}

/** Checks a line's checksum and returns where its body ends; throws CorruptRecordError if not. */
export function verifyLine(line: Uint8Array): number {
  if (line.length <= CRC_SUFFIX_LENGTH) throw new CorruptRecordError("Record is too short");
  const bodyEnd = line.length - CRC_SUFFIX_LENGTH;
  const expected = checksumOf(line, bodyEnd);
  if (expected < 0) throw new CorruptRecordError("Record has no checksum");
  const actual = crc32(CLOSE_BRACE, crc32(line.subarray(0, bodyEnd)));
  if (actual !== expected) throw new CorruptRecordError("Checksum mismatch");
  return bodyEnd;
}

/** Decodes one line (no newline), checking and removing its checksum; `text` if already decoded. */
export function decodeLine(line: Uint8Array, text?: string): Record<string, unknown> {
  const bodyEnd = verifyLine(line);
  // Parsing the line without its crc member spares a `delete`, which would slow the object.
  const body = text === undefined
    ? decodeText(line.subarray(0, bodyEnd))
    : text.slice(0, text.length - CRC_SUFFIX_LENGTH);
  return parseObject(body + "}");
}

export function decodeText(bytes: Uint8Array): string {
  try {
    return decodeUtf8(bytes);
  } catch {
    throw new CorruptRecordError("Record is not valid UTF-8 JSON");
  }
}

export function parseObject(text: string): Record<string, unknown> {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    throw new CorruptRecordError("Record is not valid UTF-8 JSON");
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new CorruptRecordError("Record is not a JSON object");
  }
  return record as Record<string, unknown>;
}

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
