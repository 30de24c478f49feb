import type { EventStore, ReplayedEvent } from "../store/event_store.ts";

/**
 * The newest events, read from the store once for every endpoint's loop: loops near the head (the
 * usual case) share one read per batch instead of each scanning the log. A loop further behind
 * than the cache reads the store itself.
 */
export class EventTail {
  #events: ReplayedEvent[] = [];
  /** The cache holds every durable event in (#from, #to]. */
  #from = -1;
  #to = -1;
  #filling: Promise<void> | undefined;

  constructor(private readonly store: EventStore, private readonly capacity = 2000) {}

  /** Up to `limit` events after `afterSeq`, in seq order, as EventStore.readFrom gives them. */
  async read(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    if (this.#from === -1 || afterSeq < this.#from || afterSeq > this.#to) {
      if (this.#from !== -1 && afterSeq < this.#from) return this.store.readFrom(afterSeq, limit);
      // First read, or a cursor ahead of the cache: start the cache there.
      const events = await this.store.readFrom(afterSeq, limit);
      if (this.#from === -1 || afterSeq > this.#to) {
        this.#events = events;
        this.#from = afterSeq;
        this.#to = events.at(-1)?.seq ?? afterSeq;
      }
      return events;
    }
    if (afterSeq === this.#to && this.store.lastSeq > this.#to) {
      await (this.#filling ??= this.#fill().finally(() => this.#filling = undefined));
    }
    const start = firstAfter(this.#events, afterSeq);
    return this.#events.slice(start, start + limit);
  }

  async #fill(): Promise<void> {
    const from = this.#to;
    const events = await this.store.readFrom(from, 500);
    if (from !== this.#to) return;
    this.#events.push(...events);
    this.#to = events.at(-1)?.seq ?? this.#to;
    const excess = this.#events.length - this.capacity;
    if (excess > 0) {
      this.#from = this.#events[excess - 1].seq;
      this.#events.splice(0, excess);
    }
  }
}

/** The index of the first event with a seq above `seq` (binary search). */
function firstAfter(events: readonly ReplayedEvent[], seq: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (events[mid].seq <= seq) low = mid + 1;
    else high = mid;
  }
  return low;
}
