import type { NewEvent, StoredEvent } from "./event_store.ts";

/** The stored event of a new one, spelled out: a rest and spread copy it twice. */
export function withSeq(event: NewEvent, seq: number): StoredEvent {
  const stored = {
    type: event.type,
    id: event.id,
    version: event.version,
    time: event.time,
    data: event.data,
    actor: event.actor,
    request_id: event.request_id,
    seq,
  } as StoredEvent;
  if (event.idempotency_key !== undefined) stored.idempotency_key = event.idempotency_key;
  if (event.request_hash !== undefined) stored.request_hash = event.request_hash;
  return stored;
}
