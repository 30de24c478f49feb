/** Lines split before their last member, so a reader parses only what it needs. */
import { decodeText, encoder, parseObject, verifyLine } from "./checked_line.ts";

/** A line split before its last member `key` (an object), without parsing that member. */
export interface SplitLine {
  head: Record<string, unknown>;
  member: string;
}

/** How splitLine gives the member: decoded afresh, sliced from the line's text, or not at all. */
export type MemberMode = "decode" | "slice" | "envelope";

/**
 * Decodes a line whose last member is the object `key`, leaving that member as text so a reader
 * that keeps text builds no object graph. "slice" takes it from `text`; "envelope" leaves it "".
 */
export function splitLine(
  line: Uint8Array,
  key: string,
  text?: string,
  mode: MemberMode = "decode",
): SplitLine | undefined {
  const marker = markerOf(key);
  // An ASCII line's text has one character per byte: the native search finds the byte offset too.
  const textAt = text === undefined ? -1 : text.indexOf(markerTextOf(key));
  if (text !== undefined && mode === "slice") {
    if (textAt === -1) return undefined;
    const bodyEnd = verifyLine(line);
    return {
      head: parseObject(text.slice(0, textAt) + "}"),
      // A slice keeps the chunk's text alive: only for short-lived reads. The crc member is ASCII.
      member: text.slice(textAt + marker.length - 1, text.length - (line.length - bodyEnd)),
    };
  }
  // The marker is ASCII: where the text before it is ASCII too, it is at the same byte offset.
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
  head: string;
  member: string;
}

/**
 * Like splitLine, but the head stays JSON text too, both decoded afresh so they do not keep the
 * chunk alive; a head equal to `previous`'s is reused.
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
