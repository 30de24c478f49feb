import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { LogTruncatedError } from "../store/store_errors.ts";
import type { FeedIndex } from "./feed_index.ts";
import { CursorExpiredError } from "./feed_errors.ts";
import { RecentEvents } from "./recent_events.ts";

export interface PageRequest {
  after: number;
  limit: number;
  types: ReadonlySet<string>;
  customerId?: string;
}

export interface FeedPage {
  events: ReplayedEvent[];
  /** The position up to which the log was read, filters included. */
  lastSeq: number;
  /** True when more events may follow at once (a bound or the limit stopped the read). */
  hasMore: boolean;
}

/** Most events one request examines when type filters skip them: no unbounded scan. */
export const SCAN_BUDGET = 10_000;
const READ_BATCH = 1000;

/** Reads feed pages from the store: bounded scans, the index for one customer, retention. */
export class FeedReader {
  #store: EventStore;
  #recent: RecentEvents;
  #index: FeedIndex;
  #retentionMs: number;
  #clock: () => number;

  constructor(
    store: EventStore,
    index: FeedIndex,
    retentionMs: number,
    clock = Date.now,
    recent = new RecentEvents(store),
  ) {
    this.#store = store;
    this.#recent = recent;
    this.#index = index;
    this.#retentionMs = retentionMs;
    this.#clock = clock;
  }

  /** The first seq still served (older events are past EVENT_RETENTION). */
  oldestSeq(): number {
    return this.#index.oldestSince(this.#clock() - this.#retentionMs);
  }

  /** Where to start: `after`, or just before the oldest retained event; 410 when expired. */
  start(after: number | undefined): number {
    const oldest = this.oldestSeq();
    if (after === undefined || after === 0) return Math.max(after ?? 0, oldest - 1);
    if (after < oldest - 1) throw new CursorExpiredError(after, oldest, this.#store.lastSeq);
    return after;
  }

  /** One page after `request.after`, never with an event that is not yet durable. */
  async read(request: PageRequest): Promise<FeedPage> {
    // Erased customers leave the index and the cache before either is looked at.
    this.#recent.forgetErased();
    try {
      return request.customerId === undefined
        ? await this.#scan(request)
        : await this.#customer(request, request.customerId);
    } catch (error) {
      if (!(error instanceof LogTruncatedError)) throw error;
      throw new CursorExpiredError(request.after, error.oldestSeq, this.#store.lastSeq);
    }
  }

  async #scan(request: PageRequest): Promise<FeedPage> {
    const head = this.#store.lastSeq;
    const events: ReplayedEvent[] = [];
    let position = request.after;
    let scanned = 0;
    while (scanned < SCAN_BUDGET) {
      const want = request.types.size === 0 ? request.limit - events.length : READ_BATCH;
      const batch = await this.#recent.readFrom(position, want);
      for (const event of batch) {
        scanned++;
        position = event.seq;
        if (request.types.size === 0 || request.types.has(event.type)) events.push(event);
        if (events.length === request.limit) return this.#page(events, position);
      }
      if (batch.length < want) {
        // The log is read to its end: erased seqs up to the head need no second look.
        return { events, lastSeq: Math.max(position, head), hasMore: false };
      }
    }
    return { events, lastSeq: position, hasMore: true };
  }

  async #customer(request: PageRequest, id: string): Promise<FeedPage> {
    const head = this.#index.indexedSeq;
    const seqs = this.#index.seqsOf(id);
    const events: ReplayedEvent[] = [];
    let position = request.after;
    for (let i = firstAfter(seqs, request.after); i < seqs.length; i++) {
      const [event] = await this.#recent.readFrom(seqs[i] - 1, 1);
      position = seqs[i];
      // An erased event is skipped by the store; what came back then is another one.
      if (event?.seq !== seqs[i]) continue;
      if (request.types.size === 0 || request.types.has(event.type)) events.push(event);
      if (events.length === request.limit) {
        return { events, lastSeq: position, hasMore: i + 1 < seqs.length };
      }
    }
    return { events, lastSeq: Math.max(position, head), hasMore: false };
  }

  #page(events: ReplayedEvent[], position: number): FeedPage {
    return { events, lastSeq: position, hasMore: position < this.#store.lastSeq };
  }
}

export function firstAfter(seqs: readonly number[], after: number): number {
  let low = 0;
  let high = seqs.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (seqs[middle] <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function matches(request: PageRequest, event: ReplayedEvent): boolean {
  return (request.types.size === 0 || request.types.has(event.type)) &&
    (request.customerId === undefined || event.id === request.customerId);
}
