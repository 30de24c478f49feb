import type { StoredEvent } from "../event_store.ts";

const encoder = new TextEncoder();

/**
 * An event's line up to its data, written as bytes straight into the writer's array: no strings
 * for the collector. Non-ASCII strings go through JSON.stringify, so the bytes equal eventHead's.
 */
export function writeEventHead(event: StoredEvent, bytes: Uint8Array, start: number): number {
  let at = writeAscii('{"seq":', bytes, start);
  at = writeInteger(event.seq, bytes, at);
  at = writeString(event.type, bytes, writeAscii(',"type":', bytes, at));
  at = writeString(event.id, bytes, writeAscii(',"id":', bytes, at));
  at = writeInteger(event.version, bytes, writeAscii(',"version":', bytes, at));
  at = writeMember(',"time":', event.time, bytes, at);
  at = writeMember(',"actor":', event.actor, bytes, at);
  at = writeMember(',"request_id":', event.request_id, bytes, at);
  at = writeMember(',"idempotency_key":', event.idempotency_key, bytes, at);
  at = writeMember(',"request_hash":', event.request_hash, bytes, at);
  return writeAscii(',"data":', bytes, at);
}

/** The most bytes writeEventHead can write for the event. */
export function eventHeadRoom(event: StoredEvent): number {
  return 200 + roomOf(event.type) + roomOf(event.id) + roomOf(event.time) + roomOf(event.actor) +
    roomOf(event.request_id) + roomOf(event.idempotency_key) + roomOf(event.request_hash);
}

/** JSON.stringify writes at most 6 characters per UTF-16 unit (`\u001f`), UTF-8 at most 3 bytes. */
function roomOf(value: string | undefined): number {
  return value === undefined ? 0 : value.length * 6 + 2;
}

/** `,"name":"value"` of a string member, or nothing when absent (as JSON.stringify omits it). */
function writeMember(
  name: string,
  value: string | undefined,
  bytes: Uint8Array,
  at: number,
): number {
  return value === undefined ? at : writeString(value, bytes, writeAscii(name, bytes, at));
}

function writeAscii(text: string, bytes: Uint8Array, at: number): number {
  for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
  return at;
}

/** A string as JSON.stringify writes it: printable ASCII but `"` and `\` as is, else escaped. */
function writeString(value: string, bytes: Uint8Array, at: number): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      return at + encoder.encodeInto(JSON.stringify(value), bytes.subarray(at)).written;
    }
  }
  bytes[at++] = 0x22;
  at = writeAscii(value, bytes, at);
  bytes[at++] = 0x22;
  return at;
}

/** A number as JSON.stringify writes it: digits for a safe non-negative integer, else its text. */
function writeInteger(value: number, bytes: Uint8Array, at: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    return writeAscii(JSON.stringify(value), bytes, at);
  }
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    bytes[i] = 0x30 + rest % 10;
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
