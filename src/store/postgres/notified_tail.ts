/**
 * The newest events other replicas committed, as their commit notifications carried them
 * (append_function_checked.ts), so that following them reads nothing from the database.
 */
import type { NewEvent, ReplayedEvent } from "../event_store.ts";

/** How many events the tail keeps (a follower further behind reads the database). */
const KEPT = 4096;

/**
 * One event as a notification carries it: type, customer id, version, time, actor, request id,
 * idempotency key, request hash, data's text.
 */
type NotifiedEvent = [
  ReplayedEvent["type"],
  string,
  number,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
];

/** What a commit notification says, once parsed. */
export type Notice =
  | { schema: string; first: number; events: NotifiedEvent[] }
  | { schema: string; head: number };

/**
 * The events of a group as the notification carries them, or null when they would not fit in
 * one (a notification holds under 8000 bytes): the commit then notifies only the head.
 */
export function noticeEvents(events: NewEvent[]): string | null {
  let bytes = 0;
  const rows: NotifiedEvent[] = [];
  for (const e of events) {
    const data = e.data === null ? null : e.dataJson ?? JSON.stringify(e.data);
    bytes += 120 + (data?.length ?? 0) + e.actor.length + e.request_id.length;
    if (bytes > 7000) return null;
    rows.push([
      e.type,
      e.id,
      e.version,
      e.time,
      e.actor,
      e.request_id,
      e.idempotency_key ?? null,
      e.request_hash ?? null,
      data,
    ]);
  }
  const text = JSON.stringify(rows);
  // The database counts bytes, and notifies the head alone should multi-byte text not fit.
  return text.length < 7700 ? text : null;
}

/** Parses a notification's payload; undefined for one that is not a commit's notice. */
export function parseNotice(payload: string | undefined): Notice | undefined {
  if (payload === undefined || !payload.startsWith("{")) return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/** A run of consecutive seqs, the newest notified. */
export class NotifiedTail {
  #events: ReplayedEvent[] = [];

  /** Adds a group's events from `first + 1`; a gap before them starts the run anew. */
  add(first: number, events: NotifiedEvent[]): void {
    const end = this.#events.length === 0 ? undefined : this.#events.at(-1)!.seq;
    if (end !== first) this.#events = [];
    events.forEach(([type, id, version, time, actor, request_id, key, hash, data], i) => {
      const event = {
        type,
        id,
        version,
        time,
        actor,
        request_id,
        seq: first + 1 + i,
        dataJson: data,
      } as ReplayedEvent;
      if (key !== null) event.idempotency_key = key;
      if (hash !== null) event.request_hash = hash;
      this.#events.push(event);
    });
    if (this.#events.length > 2 * KEPT) this.#events = this.#events.slice(-KEPT);
  }

  /**
   * The events after `afterSeq` up to `limit` of them and none past `lastSeq`, when the run holds
   * every one of them and none can have been erased (all after the erasure horizon: a customer
   * erased was deleted at or before it, and has no event after its delete); else undefined.
   */
  read(
    afterSeq: number,
    limit: number,
    lastSeq: number,
    erasedSeq: number,
  ): ReplayedEvent[] | undefined {
    const upTo = Math.min(lastSeq, afterSeq + limit);
    if (this.#events.length === 0 || upTo <= afterSeq || afterSeq < erasedSeq) return undefined;
    const start = this.#events[0].seq;
    if (afterSeq + 1 < start || upTo > this.#events.at(-1)!.seq) return undefined;
    return this.#events.slice(afterSeq + 1 - start, upTo + 1 - start);
  }
}
