/**
 * The public shape of an event, the same in the change feed, in customer history and in webhook
 * deliveries: nothing of the log's internal envelope (checksums, idempotency keys and hashes).
 */
import type { ReplayedEvent } from "../store/event_store.ts";

/** The event types a consumer can see and filter on. */
export const PUBLIC_EVENT_TYPES = [
  "customer.created",
  "customer.updated",
  "customer.deleted",
] as const;

/** One of PUBLIC_EVENT_TYPES. */
export type PublicEventType = typeof PUBLIC_EVENT_TYPES[number];

/**
 * An event as JSON text in its public shape, member order fixed:
 * `{"seq","type","time","customer_id","version","actor","request_id","data"}`. The customer's
 * data is spliced in as the log keeps it (canonical text), so no event is parsed to be served.
 */
export function publicEventJson(event: ReplayedEvent): string {
  return `{"seq":${event.seq},"type":${JSON.stringify(event.type)},"time":${
    JSON.stringify(event.time)
  },"customer_id":${JSON.stringify(event.id)},"version":${event.version},"actor":${
    JSON.stringify(event.actor)
  },"request_id":${JSON.stringify(event.request_id)},"data":${event.dataJson ?? "null"}}`;
}
