import type { EventStore, ReplayedEvent } from "../store/event_store.ts";

/** How many of the newest events read are kept. */
export const RECENT_CAPACITY = 8192;
/** Readers at the head share one read of at least this many events. */
const SHARED_READ = 500;

/**
 * A read-through cache of the newest events read from the log, the one shared by the feed (every
 * stream and long poll following the head) and webhook delivery (every endpoint's loop): they
 * read the same few events, so those come from memory instead of a file each, and readers at the
 * head waiting for the same new events share one read. It covers the seqs in (from, to]: every
 * durable event there that erasure has not removed; after a compaction erased events, clear()
 * makes it forget them with the rest (it refills from disk), for the feed and webhooks alike.
 */
export class RecentEvents {
  #store: EventStore;
  #capacity: number;
  #events: ReplayedEvent[] = [];
  #from = 0;
  #to = -1;
  /** The read past `to` under way, which readers arriving meanwhile wait for. */
  #reading: { from: number; events: Promise<ReplayedEvent[]> } | undefined;

  constructor(store: EventStore, capacity = RECENT_CAPACITY) {
    this.#store = store;
    this.#capacity = capacity;
  }

  /** As EventStore.readFrom: up to `limit` durable events after `afterSeq`. */
  async readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    if (afterSeq < this.#from || afterSeq > this.#to) {
      const events = await this.#store.readFrom(afterSeq, limit);
      // A read past the cached range starts a new one: the head moved on.
      if (afterSeq > this.#to && events.length > 0) {
        this.#events = [];
        this.#from = this.#to = afterSeq;
        this.#extend(afterSeq, events);
      }
      return events;
    }
    const hit = this.#events.slice(firstAfter(this.#events, afterSeq)).slice(0, limit);
    // Nothing durable past the cached range: no file is opened (the common case at the head).
    if (hit.length === limit || this.#to >= this.#store.lastSeq) return hit;
    const to = this.#to;
    const more = await this.#readAfter(to, limit - hit.length);
    this.#extend(to, more);
    return hit.concat(more.length > limit - hit.length ? more.slice(0, limit - hit.length) : more);
  }

  /**
   * Takes a just-committed event (durable, in seq order), so readers at the head get it without
   * reading the log. Only the event right after the cached range joins it: seqs are gap-free as
   * they are written, so the range still holds every durable event; any other is left to a read.
   */
  add(event: ReplayedEvent): void {
    if (this.#to < this.#from || event.seq !== this.#to + 1) return;
    this.#events.push(event);
    this.#to = event.seq;
    this.#trim();
  }

  /** Forgets every cached event (a compaction may have erased some from the log). */
  clear(): void {
    this.#events = [];
    this.#from = 0;
    this.#to = -1;
    this.#reading = undefined;
  }

  /** Events after `to`, read once for every reader asking for them at the same time. */
  #readAfter(to: number, want: number): Promise<ReplayedEvent[]> {
    const reading = this.#reading;
    if (reading !== undefined && reading.from === to) return reading.events;
    const events = this.#store.readFrom(to, Math.max(want, SHARED_READ));
    const mine = { from: to, events };
    this.#reading = mine;
    const done = () => {
      if (this.#reading === mine) this.#reading = undefined;
    };
    events.then(done, done);
    return events;
  }

  /** Appends a contiguous read after `from`, if it joins the cached range. */
  #extend(from: number, events: readonly ReplayedEvent[]): void {
    if (from > this.#to) return;
    for (const event of events) {
      if (event.seq <= this.#to) continue;
      this.#events.push(event);
      this.#to = event.seq;
    }
    this.#trim();
  }

  /** Drops the oldest events beyond the capacity. */
  #trim(): void {
    if (this.#events.length > this.#capacity) {
      const dropped = this.#events.splice(0, this.#events.length - this.#capacity);
      this.#from = dropped.at(-1)!.seq;
    }
  }
}

function firstAfter(events: readonly ReplayedEvent[], seq: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (events[middle].seq <= seq) low = middle + 1;
    else high = middle;
  }
  return low;
}
