import type { EventStore } from "../store/event_store.ts";
import { LogTruncatedError } from "../store/store_errors.ts";

/** The part of an event the index keeps. */
export interface IndexedEvent {
  seq: number;
  id: string;
  time: string;
}

const BUILD_PAGE = 1000;

/**
 * A small in-memory index of the log, so filters and history never scan it whole: per customer
 * the seqs of its events, and per seq the event's time in seconds (for retention), 4 bytes each.
 * Built once from the store in the background, then kept up by the service's commit listener.
 */
export class FeedIndex {
  #store: EventStore;
  #seqsOf = new Map<string, number[]>();
  #times = new Uint32Array(1024);
  #indexed = 0;
  #built = false;
  /** Commits seen while building, applied once the build is done. */
  #early: IndexedEvent[] = [];
  /** Resolves once the index covers the log as it was when built. */
  readonly ready: Promise<void>;

  /**
   * `after`: when to start the build. On a shared store the replay applies other replicas' commits
   * without telling listeners, so the build must read the log past the replay's end.
   */
  constructor(store: EventStore, after: Promise<void> = Promise.resolve()) {
    this.#store = store;
    this.ready = after.then(() => this.#build());
  }

  /** The newest seq the index covers. */
  get indexedSeq(): number {
    return this.#indexed;
  }

  /** A commit listener: indexes a just-committed event. */
  add(event: IndexedEvent): void {
    if (this.#built) this.#put(event);
    else this.#early.push(event);
  }

  /** The seqs of a customer's events, oldest first (erased ones may still be listed). */
  seqsOf(id: string): readonly number[] {
    return this.#seqsOf.get(id) ?? [];
  }

  /** The first seq whose event is not older than `cutoffMs` (indexedSeq + 1 when none is). */
  oldestSince(cutoffMs: number): number {
    // Times are whole seconds: an event is kept up to a second longer, never dropped early.
    const cutoff = Math.floor(cutoffMs / 1000);
    let low = 0;
    let high = this.#indexed;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#times[middle] < cutoff) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  }

  /** The time in ms of the event at `seq` (to the second). */
  timeOf(seq: number): number {
    return this.#times[seq - 1] * 1000;
  }

  async #build(): Promise<void> {
    // Every commit since construction is in #early, every one before it in the log.
    while (true) {
      const events = await this.#store.readFrom(this.#indexed, BUILD_PAGE).catch((error) => {
        if (!(error instanceof LogTruncatedError)) throw error;
        this.#indexed = error.oldestSeq - 1;
        return this.#store.readFrom(this.#indexed, BUILD_PAGE);
      });
      for (const event of events) this.#put(event);
      if (events.length < BUILD_PAGE) break;
    }
    this.#built = true;
    for (const event of this.#early) this.#put(event);
    this.#early = [];
  }

  #put(event: IndexedEvent): void {
    if (event.seq <= this.#indexed) return;
    if (event.seq > this.#times.length) {
      const grown = new Uint32Array(Math.max(event.seq, this.#times.length * 2));
      grown.set(this.#times);
      this.#times = grown;
    }
    const seconds = Math.floor(Date.parse(event.time) / 1000);
    // Erased seqs take their successor's time, so times stay ordered for the binary search.
    this.#times.fill(seconds, this.#indexed, event.seq);
    this.#indexed = event.seq;
    const seqs = this.#seqsOf.get(event.id);
    if (seqs === undefined) this.#seqsOf.set(event.id, [event.seq]);
    else seqs.push(event.seq);
  }
}
