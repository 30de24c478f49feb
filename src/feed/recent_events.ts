import type { EventStore, ReplayedEvent } from "../store/event_store.ts";

/** How many of the newest events read are kept. */
export const RECENT_CAPACITY = 8192;

/**
 * A read-through cache of the newest events read from the log: every stream and long poll
 * following the head reads the same few events, so they come from memory instead of a file each.
 * It covers the seqs in (from, to]: every durable event there that erasure has not removed; after
 * a compaction erased events, clear() makes it forget them with the rest (it refills from disk).
 */
export class RecentEvents {
  #store: EventStore;
  #capacity: number;
  #events: ReplayedEvent[] = [];
  #from = 0;
  #to = -1;

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
    const more = await this.#store.readFrom(to, limit - hit.length);
    this.#extend(to, more);
    return hit.concat(more);
  }

  /** Forgets every cached event (a compaction may have erased some from the log). */
  clear(): void {
    this.#events = [];
    this.#from = 0;
    this.#to = -1;
  }

  /** Appends a contiguous read after `from`, if it joins the cached range. */
  #extend(from: number, events: readonly ReplayedEvent[]): void {
    if (from > this.#to) return;
    for (const event of events) {
      if (event.seq <= this.#to) continue;
      this.#events.push(event);
      this.#to = event.seq;
    }
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
