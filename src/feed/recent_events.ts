import type { EventStore, ReplayedEvent } from "../store/event_store.ts";

/** How many of the newest events read are kept (up to a quarter more until they are dropped). */
export const RECENT_CAPACITY = 8192;
/** Readers at the head share one read of at least this many events. */
const SHARED_READ = 500;

/** The deleted customers erasure passed since the last call, each with its delete's seq. */
export type ErasedCustomers = (erasedSeq: number) => ReadonlyMap<string, number> | undefined;

/** The newest events read, cached for the feed and webhooks; erased customers' dropped first. */
export class RecentEvents {
  #store: EventStore;
  #capacity: number;
  #events: ReplayedEvent[] = [];
  #from = 0;
  #to = -1;
  /** The read past `to` under way, which readers arriving meanwhile wait for. */
  #reading: { from: number; events: Promise<ReplayedEvent[]> } | undefined;
  #erased: ErasedCustomers | undefined;
  /** Moves whenever events are forgotten: a read started before may not refill the cache. */
  #generation = 0;

  constructor(store: EventStore, capacity = RECENT_CAPACITY, erased?: ErasedCustomers) {
    this.#store = store;
    this.#capacity = capacity;
    this.#erased = erased;
  }

  async readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    this.forgetErased();
    const generation = this.#generation;
    if (afterSeq < this.#from || afterSeq > this.#to) {
      const events = await this.#store.readFrom(afterSeq, limit);
      // A read past the cached range starts a new one: the head moved on.
      if (afterSeq > this.#to && events.length > 0 && generation === this.#generation) {
        this.#events = [];
        this.#from = this.#to = afterSeq;
        this.#extend(afterSeq, events);
      }
      return events;
    }
    // One copy of at most `limit` events, not of the whole tail.
    const start = firstAfter(this.#events, afterSeq);
    const hit = this.#events.slice(start, start + limit);
    // Nothing durable past the cached range: no file is opened (the common case at the head).
    if (hit.length === limit || this.#to >= this.#store.lastSeq) return hit;
    const to = this.#to;
    const more = await this.#readAfter(to, limit - hit.length);
    if (generation === this.#generation) this.#extend(to, more);
    return hit.concat(more.length > limit - hit.length ? more.slice(0, limit - hit.length) : more);
  }

  /** Drops the cached events of customers whose delete the erasure horizon passed since. */
  forgetErased(): void {
    const erased = this.#erased?.(this.#store.erasedSeq);
    if (erased === undefined) return;
    this.#events = this.#events.filter((event) => !(event.seq < (erased.get(event.id) ?? 0)));
    this.#forgot();
  }

  /** Takes a just-committed event if it is the seq right after the cached range. */
  add(event: ReplayedEvent): void {
    if (this.#to < this.#from || event.seq !== this.#to + 1) return;
    this.#events.push(event);
    this.#to = event.seq;
    this.#trim();
  }

  /** Forgets every cached event (the replica's state was reloaded from a snapshot). */
  clear(): void {
    this.#events = [];
    this.#from = 0;
    this.#to = -1;
    this.#forgot();
  }

  /** Reads under way started before: they may not add what was just forgotten, nor be shared. */
  #forgot(): void {
    this.#generation++;
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

  /** Drops the oldest events once a quarter of slack has gathered, not one array move per write. */
  #trim(): void {
    if (this.#events.length > this.#capacity + (this.#capacity >> 2)) {
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
