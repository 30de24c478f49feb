import { crc32 } from "node:zlib";
import { concat } from "../../lib/bytes.ts";
import { decodeUtf8 } from "../../lib/utf8.ts";

const encoder = new TextEncoder();
const CLOSE_BRACE = encoder.encode("}");
const SUFFIX_HEAD = encoder.encode(',"crc":"');
/** The checksum's digits: lower-case hex, as every line writes them. */
const HEX_DIGITS = encoder.encode("0123456789abcdef");
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
  // Encoded once: the checksum is taken over these bytes, which the line then copies.
  const body = encoder.encode(json);
  const crc = crc32(body).toString(16).padStart(8, "0");
  const line = new Uint8Array(body.length + CRC_SUFFIX_LENGTH);
  line.set(body.subarray(0, body.length - 1));
  encoder.encodeInto(`,"crc":"${crc}"}\n`, line.subarray(body.length - 1));
  return line;
}

/**
 * Self-checking lines encoded one after another into one reused buffer (what encodeLine makes,
 * byte for byte), for a writer of many lines: no array per line for the collector to free.
 */
export class LineBuffer {
  #bytes = new Uint8Array(1 << 20);
  #length = 0;

  /** The bytes of the lines added since the last clear (a view, valid until the next add). */
  get bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** Adds the line of a JSON object's text. */
  add(json: string): void {
    const needed = this.#length + lineRoom(json);
    if (needed > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
      grown.set(this.bytes);
      this.#bytes = grown;
    }
    this.#length = encodeLineInto(json, this.#bytes, this.#length);
  }

  /** Forgets the lines added, keeping the buffer. */
  clear(): void {
    this.#length = 0;
  }
}

/**
 * Self-checking lines (what encodeLine makes, byte for byte) encoded one after another into large
 * arrays that are never reused, for the log's writer: each line is a view that stays valid as
 * long as it is kept, lines encoded in a row sit next to each other (so a group commit writes
 * them as one view, joinAdjacent, instead of copying them into a new array), and no array is
 * made per line. An array per line (off the JavaScript heap once over 64 bytes) cost an
 * allocation, a copy into the batch and the collector's work to free it.
 */
export class LineArena {
  #slab = new Uint8Array(ARENA_SLAB_BYTES);
  #end = 0;

  /**
   * Encodes a JSON object's text as a line (newline included); returns a view of its bytes. With
   * `last`, the text is `json` + `last` + `}` (an object whose last member's value is `last`):
   * each part is encoded where it goes, so the whole text is never made as one string. Joined
   * first, the parts made a concatenation that encoding flattened into a copy of the whole line,
   * a few hundred bytes for the collector per event.
   */
  add(json: string, last?: string): Uint8Array {
    return this.addWritten(json.length * 3, writeText, json, last);
  }

  /**
   * Like add(head, last), with the head written by `write` (at most `room` bytes) from `value`
   * instead of encoded from a string: a writer that knows its head's parts (event_head.ts) writes
   * them as bytes, making no string at all. With `last` undefined the head is the whole text.
   */
  addWritten<T>(
    room: number,
    write: (value: T, bytes: Uint8Array, at: number) => number,
    value: T,
    last?: string,
  ): Uint8Array {
    room += CRC_SUFFIX_LENGTH + (last === undefined ? 0 : last.length * 3 + 1);
    if (this.#end + room > this.#slab.length) {
      // The old array lives on as long as a line in it is kept.
      this.#slab = new Uint8Array(Math.max(ARENA_SLAB_BYTES, room));
      this.#end = 0;
    }
    const start = this.#end;
    let end = write(value, this.#slab, start);
    if (last !== undefined) {
      end += encoder.encodeInto(last, this.#slab.subarray(end)).written;
      this.#slab[end++] = 0x7d; // the object's closing brace
    }
    this.#end = checksumInto(this.#slab, start, end);
    return this.#slab.subarray(start, this.#end);
  }
}

/** The size of each of a LineArena's arrays: room for about 150 events of a few hundred bytes. */
const ARENA_SLAB_BYTES = 64 * 1024;

/**
 * Byte views one after another as one: a view spanning them when they are adjacent in one array
 * (lines a LineArena encoded in a row, the usual batch), else a copy of them joined.
 */
export function joinAdjacent(parts: readonly Uint8Array[]): Uint8Array {
  const first = parts[0];
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    if (part.buffer !== first.buffer || part.byteOffset !== end) return concat(parts);
    end += part.length;
  }
  return parts.length === 1
    ? first
    : new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** Encodes a text into `bytes` at `at`, which has room for it; returns where it ends. */
function writeText(text: string, bytes: Uint8Array, at: number): number {
  return at + encoder.encodeInto(text, bytes.subarray(at)).written;
}

/** The most bytes the line of a JSON text can take: 3 per UTF-16 unit, the suffix for the brace. */
function lineRoom(json: string): number {
  return json.length * 3 + CRC_SUFFIX_LENGTH;
}

/**
 * Encodes a JSON object's text as a line into `bytes` at `start`, which has lineRoom for it;
 * returns where the line ends. The text is encoded once, in place, and the checksum taken over
 * those bytes; its digits are written byte by byte (no string made for them).
 */
function encodeLineInto(json: string, bytes: Uint8Array, start: number): number {
  const { written } = encoder.encodeInto(json, bytes.subarray(start));
  return checksumInto(bytes, start, start + written);
}

/**
 * Ends the line whose JSON text is at bytes[start, end) with its checksum member and newline, in
 * place of the closing brace; returns where the line ends.
 */
function checksumInto(bytes: Uint8Array, start: number, end: number): number {
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

/**
 * Checks a line's checksum and returns where its body ends (where `,"crc":` begins); throws
 * CorruptRecordError when the line is torn or damaged.
 */
export function verifyLine(line: Uint8Array): number {
  if (line.length <= CRC_SUFFIX_LENGTH) throw new CorruptRecordError("Record is too short");
  const bodyEnd = line.length - CRC_SUFFIX_LENGTH;
  const expected = checksumOf(line, bodyEnd);
  if (expected < 0) throw new CorruptRecordError("Record has no checksum");
  const actual = crc32(CLOSE_BRACE, crc32(line.subarray(0, bodyEnd)));
  if (actual !== expected) throw new CorruptRecordError("Checksum mismatch");
  return bodyEnd;
}

/**
 * Decodes one line (without its newline), checking its checksum; the crc member is removed.
 * `text` is the line already decoded as UTF-8, when the caller has it.
 */
export function decodeLine(line: Uint8Array, text?: string): Record<string, unknown> {
  const bodyEnd = verifyLine(line);
  // Parsing the line without its crc member spares a `delete`, which would slow the object.
  const body = text === undefined
    ? decodeText(line.subarray(0, bodyEnd))
    : text.slice(0, text.length - CRC_SUFFIX_LENGTH);
  return parseObject(body + "}");
}

/** A line split before its last member `key` (an object), without parsing that member. */
export interface SplitLine {
  /** The other members, parsed. */
  head: Record<string, unknown>;
  /** The last member's JSON text, a string of its own. */
  member: string;
}

/** How splitLine gives the member: decoded afresh, sliced from the line's text, or not at all. */
export type MemberMode = "decode" | "slice" | "envelope";

/**
 * Decodes a line whose last member before the checksum is the object `key`, leaving that member
 * as text: a reader that keeps text need not build (and then collect) its object graph. The
 * member must follow only scalar members, so the first `,"key":{` is the member itself.
 * Undefined when the line has no such member; throws CorruptRecordError when it is damaged.
 * `mode` "slice" (with the line's `text`) takes the member as a slice of that text instead of a
 * fresh decode (one TextDecoder call less per line); "envelope" leaves it undecoded (""), for a
 * reader of the other members only.
 */
export function splitLine(
  line: Uint8Array,
  key: string,
  text?: string,
  mode: MemberMode = "decode",
): SplitLine | undefined {
  const marker = markerOf(key);
  // An ASCII line's text has one character per byte: the native search on it finds the byte
  // offset too, sparing the byte-by-byte search.
  const textAt = text === undefined ? -1 : text.indexOf(markerTextOf(key));
  if (text !== undefined && mode === "slice") {
    if (textAt === -1) return undefined;
    const bodyEnd = verifyLine(line);
    return {
      head: parseObject(text.slice(0, textAt) + "}"),
      // A slice keeps the chunk's whole text alive as long as it lives: only for short-lived
      // reads. The checksum member after bodyEnd is ASCII: as long in bytes as in text.
      member: text.slice(textAt + marker.length - 1, text.length - (line.length - bodyEnd)),
    };
  }
  // The marker is ASCII: it is in the bytes where it is in their text. Where the text before it
  // is ASCII too (the envelope usually is; non-ASCII is mostly in the data), it starts at the
  // same offset in bytes, and its bytes are found there.
  const at = text === undefined || (textAt !== -1 && !startsAt(line, textAt, marker))
    ? indexOf(line, marker)
    : textAt;
  if (at === -1) return undefined;
  const bodyEnd = verifyLine(line);
  const headText = text === undefined ? decodeText(line.subarray(0, at)) : text.slice(0, textAt);
  return {
    head: parseObject(headText + "}"),
    member: mode === "decode" ? decodeText(line.subarray(at + marker.length - 1, bodyEnd)) : "",
  };
}

/** A line split before its last member, both parts as JSON text. */
export interface SplitText {
  /** The other members as an object's JSON text. */
  head: string;
  /** The last member's JSON text, a string of its own. */
  member: string;
}

/**
 * Like splitLine, but the head stays JSON text too (for a reader that keeps records as text).
 * Both parts are decoded afresh, so keeping them does not keep the chunk they were read from.
 * When the head's bytes are those of `previous` (records of one kind share their short head),
 * its text is reused, neither decoded nor allocated again.
 */
export function splitLineText(
  line: Uint8Array,
  key: string,
  previous?: SplitText,
): SplitText | undefined {
  const marker = markerOf(key);
  const at = indexOf(line, marker);
  if (at === -1) return undefined;
  const bodyEnd = verifyLine(line);
  const member = decodeText(line.subarray(at + marker.length - 1, bodyEnd));
  if (previous !== undefined && sameHead(line, at, previous.head)) {
    return { head: previous.head, member };
  }
  return { head: decodeText(line.subarray(0, at)) + "}", member };
}

/** True when line[0, at) is the ASCII text `head` without its closing brace. */
function sameHead(line: Uint8Array, at: number, head: string): boolean {
  if (head.length !== at + 1) return false;
  for (let i = 0; i < at; i++) {
    if (line[i] >= 0x80 || line[i] !== head.charCodeAt(i)) return false;
  }
  return true;
}

/** A line's JSON text without its checksum member, decoded afresh. */
export function bodyText(line: Uint8Array): string {
  return decodeText(line.subarray(0, verifyLine(line))) + "}";
}

const markers = new Map<string, Uint8Array>();
const markerTexts = new Map<string, string>();

/** `,"key":{`, the text before an object member (one string per key, not one per line). */
function markerTextOf(key: string): string {
  let marker = markerTexts.get(key);
  if (marker === undefined) markerTexts.set(key, marker = `,"${key}":{`);
  return marker;
}

function markerOf(key: string): Uint8Array {
  let marker = markers.get(key);
  if (marker === undefined) markers.set(key, marker = encoder.encode(`,"${key}":{`));
  return marker;
}

/**
 * True when `marker` is at `at` in `line`. For an ASCII marker found at character `at` of the
 * line's text, it is found at byte `at` only when every character before is ASCII, so `at` is then
 * its first occurrence in bytes too.
 */
function startsAt(line: Uint8Array, at: number, marker: Uint8Array): boolean {
  if (at + marker.length > line.length) return false;
  for (let i = 0; i < marker.length; i++) if (line[at + i] !== marker[i]) return false;
  return true;
}

function indexOf(line: Uint8Array, marker: Uint8Array): number {
  search: for (let at = line.indexOf(marker[0]); at !== -1; at = line.indexOf(marker[0], at + 1)) {
    for (let i = 1; i < marker.length; i++) if (line[at + i] !== marker[i]) continue search;
    return at;
  }
  return -1;
}

function decodeText(bytes: Uint8Array): string {
  try {
    return decodeUtf8(bytes);
  } catch {
    throw new CorruptRecordError("Record is not valid UTF-8 JSON");
  }
}

function parseObject(text: string): Record<string, unknown> {
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
