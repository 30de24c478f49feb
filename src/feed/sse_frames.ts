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
