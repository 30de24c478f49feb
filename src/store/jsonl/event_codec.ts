import { isUlid } from "../../domain/customer.ts";
import { EVENT_TYPES } from "../../domain/events.ts";
import type { ReplayedEvent, StoredEvent } from "../event_store.ts";
import { CorruptRecordError, decodeLine, encodeLine } from "./checked_line.ts";
import { type MemberMode, splitLine } from "./line_split.ts";

export { CorruptRecordError };

/** Encodes an event as one self-checking JSON line; `dataJson` spares serialising data twice. */
export function encodeEvent(event: StoredEvent, dataJson?: string): Uint8Array {
  return encodeLine(eventText(event, dataJson));
}

/** An event's log-line text before the checksum, member by member (`bench --only=http`). */
export function eventText(event: StoredEvent, dataJson?: string): string {
  return `${eventHead(event)}${dataText(event, dataJson)}}`;
}

/** eventText up to the value of `data`; the log writer writes these bytes itself (event_head). */
export function eventHead(event: StoredEvent): string {
  let text = `{"seq":${event.seq},"type":${quote(event.type)},"id":${
    quote(event.id)
  },"version":${event.version}`;
  text += member("time", event.time) + member("actor", event.actor);
  text += member("request_id", event.request_id);
  text += member("idempotency_key", event.idempotency_key);
  text += member("request_hash", event.request_hash);
  return `${text},"data":`;
}

/** The JSON text of an event's data: `dataJson` when given, else serialised now. */
export function dataText(event: StoredEvent, dataJson?: string): string {
  return dataJson ?? JSON.stringify(event.data);
}

/** `,"name":value` of a string member, or nothing when it is absent (as JSON.stringify omits it). */
function member(name: string, value: string | undefined): string {
  return value === undefined ? "" : `,"${name}":${quote(value)}`;
}

function quote(value: string): string {
  return JSON.stringify(value);
}

/** Decodes one log line (without its newline), checking its checksum and shape. */
export function decodeEvent(line: Uint8Array, text?: string): StoredEvent {
  return checkShape(decodeLine(line, text)) as unknown as StoredEvent;
}

/**
 * Decodes one log line for replay, leaving the data as JSON text (`dataJson`): "slice" takes it
 * from `text` (keeps the chunk alive), "envelope" leaves it "" (null for a delete).
 */
export function decodeReplayed(
  line: Uint8Array,
  text?: string,
  mode: MemberMode = "decode",
): ReplayedEvent {
  const split = splitLine(line, "data", text, mode);
  if (split === undefined) {
    const record = checkShape(decodeLine(line, text));
    if (record.data !== null) throw new CorruptRecordError("Record is not a customer event");
    record.dataJson = null;
    return record as unknown as ReplayedEvent;
  }
  const record = checkShape(split.head);
  record.dataJson = split.member;
  return record as unknown as ReplayedEvent;
}

function checkShape(record: Record<string, unknown>): Record<string, unknown> {
  if (
    !Number.isSafeInteger(record.seq) || !EVENT_TYPES.has(record.type as string) ||
    typeof record.id !== "string" || !isUlid(record.id) || !Number.isSafeInteger(record.version)
  ) {
    throw new CorruptRecordError("Record is not a customer event");
  }
  return record;
}
