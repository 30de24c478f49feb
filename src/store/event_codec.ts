import { isUlid } from "../domain/customer.ts";
import { EVENT_TYPES } from "../domain/events.ts";
import type { StoredEvent } from "./event_store.ts";
import { CorruptRecordError, decodeLine, encodeLine, splitLine } from "./checked_line.ts";

export { CorruptRecordError };

/** Encodes an event as one self-checking JSON line, newline included. */
export function encodeEvent(event: StoredEvent): Uint8Array {
  return encodeLine({
    seq: event.seq,
    type: event.type,
    id: event.id,
    version: event.version,
    time: event.time,
    actor: event.actor,
    request_id: event.request_id,
    idempotency_key: event.idempotency_key,
    request_hash: event.request_hash,
    data: event.data,
  });
}

/**
 * Decodes one log line (without its newline), checking its checksum and shape. With `withData`
 * the event's data is left as JSON text (`dataJson`) and parsed only if `data` is read: a reader
 * that keeps text spares building and collecting an object graph per event.
 */
export function decodeEvent(line: Uint8Array, text?: string, withData = false): StoredEvent {
  const split = withData ? splitLine(line, "data", text) : undefined;
  const record = split?.head ?? decodeLine(line, text);
  if (
    !Number.isSafeInteger(record.seq) || !EVENT_TYPES.has(record.type as string) ||
    typeof record.id !== "string" || !isUlid(record.id) || !Number.isSafeInteger(record.version)
  ) {
    throw new CorruptRecordError("Record is not a customer event");
  }
  if (split !== undefined) {
    const json = split.member;
    let data: unknown;
    Object.defineProperty(record, "data", {
      enumerable: true,
      get: () => data ??= JSON.parse(json),
    });
    // Not enumerable: a reader's convenience, not part of the event.
    Object.defineProperty(record, "dataJson", { value: json });
  }
  return record as unknown as StoredEvent;
}
