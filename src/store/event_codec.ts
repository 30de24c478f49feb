import { crc32 } from "node:zlib";
import { isUlid } from "../domain/customer.ts";
import { EVENT_TYPES } from "../domain/events.ts";
import type { StoredEvent } from "./event_store.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const CLOSE_BRACE = encoder.encode("}");
/** Every line ends with `,"crc":"xxxxxxxx"}`: the CRC-32 of the line as if that member were absent. */
const CRC_SUFFIX_LENGTH = ',"crc":"00000000"}'.length;

/** A log line that does not decode: torn, damaged or not an event. */
export class CorruptRecordError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "CorruptRecordError";
  }
}

/** Encodes an event as one self-checking JSON line, newline included. */
export function encodeEvent(event: StoredEvent): Uint8Array {
  const json = JSON.stringify({
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
  const crc = crc32(json).toString(16).padStart(8, "0");
  return encoder.encode(`${json.slice(0, -1)},"crc":"${crc}"}\n`);
}

/** Decodes one log line (without its newline), checking its checksum and shape. */
export function decodeEvent(line: Uint8Array): StoredEvent {
  if (line.length <= CRC_SUFFIX_LENGTH) throw new CorruptRecordError("Record is too short");
  const bodyEnd = line.length - CRC_SUFFIX_LENGTH;
  const suffix = String.fromCharCode(...line.subarray(bodyEnd));
  const match = /^,"crc":"([0-9a-f]{8})"\}$/.exec(suffix);
  if (match === null) throw new CorruptRecordError("Record has no checksum");
  const actual = crc32(CLOSE_BRACE, crc32(line.subarray(0, bodyEnd)));
  if (actual !== parseInt(match[1], 16)) throw new CorruptRecordError("Checksum mismatch");
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(decoder.decode(line));
  } catch {
    throw new CorruptRecordError("Record is not valid UTF-8 JSON");
  }
  if (
    !Number.isSafeInteger(record.seq) || !EVENT_TYPES.has(record.type as string) ||
    typeof record.id !== "string" || !isUlid(record.id) || !Number.isSafeInteger(record.version)
  ) {
    throw new CorruptRecordError("Record is not a customer event");
  }
  delete record.crc;
  return record as unknown as StoredEvent;
}
