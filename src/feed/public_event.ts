/** The public shape of an event in the feed, history and webhooks: no internal envelope members. */
import type { ReplayedEvent } from "../store/event_store.ts";

/** The event types a consumer can see and filter on. */
export const PUBLIC_EVENT_TYPES = [
  "customer.created",
  "customer.updated",
  "customer.deleted",
] as const;

export type PublicEventType = typeof PUBLIC_EVENT_TYPES[number];

/** An event's public JSON text in fixed member order, the customer's data spliced in unparsed. */
export function publicEventJson(event: ReplayedEvent): string {
  return `{"seq":${event.seq},"type":${JSON.stringify(event.type)},"time":${
    JSON.stringify(event.time)
  },"customer_id":${JSON.stringify(event.id)},"version":${event.version},"actor":${
    JSON.stringify(event.actor)
  },"request_id":${JSON.stringify(event.request_id)},"data":${event.dataJson ?? "null"}}`;
}
