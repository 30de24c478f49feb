/**
 * The newest events of the log: other replicas' as their commit notifications carried them
 * (append_function_checked.ts), and this replica's own, so that following the log and reading
 * its newest events read nothing from the database.
 */
import type { NewEvent, ReplayedEvent } from "../event_store.ts";

/** The seqs the tail keeps, a power of two (a follower further behind reads the database). */
const KEPT = 8192;

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

/** A replica saying it listens to the log: the others' notices then carry their events. */
export interface Hello {
  schema: string;
  listening: true;
}

/** The payload of a hello from the replica following the log in `schema`. */
export function helloPayload(schema: string): string {
  return JSON.stringify({ schema, listening: true } satisfies Hello);
}

/** The most bytes of one line of events: its notification stays under 8000. */
const LINE_BYTES = 7600;
const encoder = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The events of a group as its notifications carry them (append_function_notices.ts): lines of
 * `offset:[events]`, each short enough for one notification.
 */
export function noticeEvents(events: NewEvent[]): string {
  let text = "";
  let line = "";
  let bytes = 0;
  events.forEach((e, i) => {
    const row = JSON.stringify(
      [
        e.type,
        e.id,
        e.version,
        e.time,
        e.actor,
        e.request_id,
        e.idempotency_key ?? null,
        e.request_hash ?? null,
        e.data === null ? null : e.dataJson ?? JSON.stringify(e.data),
      ] satisfies NotifiedEvent,
    );
    const size = NON_ASCII.test(row) ? encoder.encode(row).length : row.length;
    if (line !== "" && bytes + size >= LINE_BYTES) {
      text += `${line}]\n`;
      line = "";
      bytes = 0;
    }
    line += line === "" ? `${i}:[${row}` : `,${row}`;
    bytes += size + 1;
  });
  return line === "" ? text.slice(0, -1) : `${text}${line}]`;
}

/** Parses a notification's payload; undefined for one that is neither a notice nor a hello. */
export function parseNotice(payload: string | undefined): Notice | Hello | undefined {
  if (payload === undefined || !payload.startsWith("{")) return undefined;
  let notice: Partial<
    { schema: unknown; first: unknown; events: unknown; head: unknown; listening: unknown }
  >;
  try {
    notice = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof notice.schema !== "string") return undefined;
  if (notice.listening === true) return notice as Hello;
  if (typeof notice.head === "number") return notice as Notice;
  return typeof notice.first === "number" && Array.isArray(notice.events)
    ? notice as Notice
    : undefined;
}

/**
 * The newest events by seq, from other replicas' notifications and this replica's own commits:
 * groups may arrive out of seq order (a notification before the answer to an earlier commit).
 */
export class NotifiedTail {
  /** A ring by seq: an event's slot is taken over by the event KEPT seqs after it. */
  #events: (ReplayedEvent | undefined)[] = new Array(KEPT);
  #newest = 0;

  /** Adds a group's events, from seq `first + 1`, as a notification carries them. */
  add(first: number, events: NotifiedEvent[]): void {
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
      this.#put(event);
    });
  }

  /** Adds events this replica committed. */
  addOwn(events: readonly NewEvent[], stored: readonly { seq: number }[]): void {
    events.forEach((e, i) => {
      const event = {
        type: e.type,
        id: e.id,
        version: e.version,
        time: e.time,
        actor: e.actor,
        request_id: e.request_id,
        seq: stored[i].seq,
        dataJson: e.data === null ? null : e.dataJson ?? JSON.stringify(e.data),
      } as ReplayedEvent;
      if (e.idempotency_key !== undefined) event.idempotency_key = e.idempotency_key;
      if (e.request_hash !== undefined) event.request_hash = e.request_hash;
      this.#put(event);
    });
  }

  #put(event: ReplayedEvent): void {
    const slot = event.seq & (KEPT - 1);
    // A group arriving late must not take the slot of a newer event.
    if ((this.#events[slot]?.seq ?? 0) > event.seq) return;
    this.#events[slot] = event;
    if (event.seq > this.#newest) this.#newest = event.seq;
  }

  /**
   * The events after `afterSeq` up to `limit` of them and none past `lastSeq`, when the tail
   * holds every one of them and none can have been erased (all after the erasure horizon: a
   * customer erased was deleted at or before it, and has no event after its delete); else
   * undefined.
   */
  read(
    afterSeq: number,
    limit: number,
    lastSeq: number,
    erasedSeq: number,
  ): ReplayedEvent[] | undefined {
    const upTo = Math.min(lastSeq, afterSeq + limit);
    if (upTo <= afterSeq || afterSeq < erasedSeq || upTo > this.#newest) return undefined;
    const page: ReplayedEvent[] = [];
    for (let seq = afterSeq + 1; seq <= upTo; seq++) {
      const event = this.#events[seq & (KEPT - 1)];
      if (event?.seq !== seq) return undefined;
      page.push(event);
    }
    return page;
  }
}
