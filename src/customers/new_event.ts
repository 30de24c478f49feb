import type { CustomerEvent } from "../domain/events.ts";
import type { EventMeta, NewEvent } from "../store/event_store.ts";
import type { WriteContext } from "./write_context.ts";

/** The metadata of a create that carried an idempotency key. */
export type IdempotencyMeta = Required<Pick<EventMeta, "idempotency_key" | "request_hash">>;

/**
 * The event to append: the decided event, who wrote it, and its data's text. Spelled out rather
 * than spread: spreads copy through the engine's slow generic path, on every write.
 */
export function newEvent(
  event: CustomerEvent,
  context: WriteContext,
  dataJson: string | undefined,
  extra: IdempotencyMeta | undefined,
): NewEvent {
  const next = {
    type: event.type,
    id: event.id,
    version: event.version,
    time: event.time,
    data: event.data,
    actor: context.actor,
    request_id: context.requestId,
    dataJson,
  } as NewEvent;
  if (extra !== undefined) {
    next.idempotency_key = extra.idempotency_key;
    next.request_hash = extra.request_hash;
  }
  return next;
}

/**
 * `{ [id]: version }`, an append's expected version, made a dictionary from the start: a literal
 * keyed by each write's new id would give the engine a new hidden class per customer.
 */
export function streamAt(id: string, version: number): Record<string, number> {
  const expected: Record<string, number> = Object.create(null);
  expected[id] = version;
  return expected;
}
