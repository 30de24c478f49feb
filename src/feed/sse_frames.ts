import type { ReplayedEvent } from "../store/event_store.ts";
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

/** An event frame as bytes, encoded once per event. */
export function frameBytes(event: ReplayedEvent): Uint8Array {
  let bytes = frames.get(event);
  if (bytes === undefined) frames.set(event, bytes = encoder.encode(eventFrame(event)));
  return bytes;
}

/** Several frames as one chunk, so a page is one write. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
