import type { ReplayedEvent } from "../store/event_store.ts";
import { concat } from "../lib/bytes.ts";
import type { PageRequest } from "./feed_reader.ts";
import { publicEventJson } from "./public_event.ts";

/** An event as one Server-Sent Events frame: `id`, `event` and `data` lines, then a blank line. */
export function eventFrame(event: ReplayedEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${publicEventJson(event)}\n\n`;
}

/** A bookmark frame: the newest seq read when filters skipped events, so a resume starts there. */
export function bookmarkFrame(lastSeq: number): string {
  return `id: ${lastSeq}\nevent: bookmark\ndata: {"last_seq":${lastSeq}}\n\n`;
}

/** A comment line that keeps proxies and clients from timing the stream out. */
export const HEARTBEAT_FRAME = ": heartbeat\n\n";

const encoder = new TextEncoder();
/** Each event's frame is encoded once however many streams send it (the events are cached). */
const frames = new WeakMap<ReplayedEvent, Uint8Array>();

export function frameBytes(event: ReplayedEvent): Uint8Array {
  let bytes = frames.get(event);
  if (bytes === undefined) frames.set(event, bytes = encoder.encode(eventFrame(event)));
  return bytes;
}

/** The frames of some events as one chunk (one write), or undefined when there are none. */
export function framesChunk(events: readonly ReplayedEvent[]): Uint8Array | undefined {
  if (events.length === 0) return undefined;
  return events.length === 1 ? frameBytes(events[0]) : concat(events.map(frameBytes));
}

/** The filter key of a stream without filters. */
export const UNFILTERED = "";

/** A stream's filters as a key: streams with the same key are sent the same chunk. */
export function filterKey(request: PageRequest): string {
  if (request.types.size === 0 && request.customerId === undefined) return UNFILTERED;
  return `${[...request.types].sort().join(",")}|${request.customerId ?? ""}`;
}
