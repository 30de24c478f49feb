import type { EventStore } from "../store/event_store.ts";
import { LogTruncatedError } from "../store/store_errors.ts";
import { retryPauseMs } from "../lib/retry_pause.ts";

/** The part of an event the index keeps. */
export interface IndexedEvent {
  seq: number;
  id: string;
  time: string;
  type: string;
}

/** A delete the store's erasure horizon had not passed when it was indexed. */
interface PendingDelete {
  seq: number;
  id: string;
}

const BUILD_PAGE = 1000;

/**
 * An in-memory index of the log, so filters and history never scan it: per customer its seqs, per
 * seq its time in seconds. Built once in the background, then fed by the commit listener; deletes
 * are noted so a customer's earlier seqs leave it once the store's erasedSeq passes the delete.
 */
export class FeedIndex {
  #store: EventStore;
  #onError: (error: unknown) => void;
  /** A customer's one seq as a number (most customers have one event), more as an array. */
  #seqsOf = new Map<string, number | number[]>();
  /** The greatest id #seqsOf holds (or held): a greater one is not in it. */
  #maxId = "";
  #times = new Uint32Array(1024);
  #indexed = 0;
  #built = false;
  /** Commits seen while building, applied once the build is done. */
  #early: IndexedEvent[] = [];
  /** Deletes in seq order; those before #taken were handed out by takeErased. */
  #deletes: PendingDelete[] = [];
  #taken = 0;
  #lastTime = "";
  #lastSeconds = 0;
  /** Resolves once the index covers the log as it was when built. */
  readonly ready: Promise<void>;

  /**
   * `after`: the replay's end. The replay applies the log without telling listeners, so the build
   * must read past it. `onError` is told of each failed build read (it is retried).
   */
  constructor(
    store: EventStore,
    after: Promise<void> = Promise.resolve(),
    onError: (error: unknown) => void = () => {},
  ) {
    this.#store = store;
    this.#onError = onError;
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
    const seqs = this.#seqsOf.get(id);
    return seqs === undefined ? [] : typeof seqs === "number" ? [seqs] : seqs;
  }

  /**
   * Customers whose delete the erasure horizon `erasedSeq` now covers, with the delete's seq, once:
   * their earlier seqs leave the index. Undefined when none, the usual case.
   */
  takeErased(erasedSeq: number): ReadonlyMap<string, number> | undefined {
    const deletes = this.#deletes;
    if (this.#taken === deletes.length || deletes[this.#taken].seq > erasedSeq) return undefined;
    const erased = new Map<string, number>();
    for (; this.#taken < deletes.length && deletes[this.#taken].seq <= erasedSeq; this.#taken++) {
      const { seq, id } = deletes[this.#taken];
      erased.set(id, seq);
      const seqs = this.#seqsOf.get(id);
      if (typeof seqs === "object") {
        const kept = seqs.filter((s) => s >= seq);
        this.#seqsOf.set(id, kept.length === 1 ? kept[0] : kept);
      } else if (seqs !== undefined && seqs < seq) this.#seqsOf.set(id, []);
    }
    // Handed-out deletes go in one slice now and then, not one shift each.
    if (this.#taken >= 1024 && this.#taken * 2 >= deletes.length) {
      this.#deletes = deletes.slice(this.#taken);
      this.#taken = 0;
    }
    return erased;
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

  /** Reads the log in pages; a failed read is reported and retried where it stopped. */
  async #build(): Promise<void> {
    // Every commit since construction is in #early, every one before it in the log.
    for (let failures = 0;;) {
      let events;
      try {
        events = await this.#store.readFrom(this.#indexed, BUILD_PAGE).catch((error) => {
          if (!(error instanceof LogTruncatedError)) throw error;
          this.#indexed = error.oldestSeq - 1;
          return this.#store.readFrom(this.#indexed, BUILD_PAGE);
        });
      } catch (error) {
        this.#onError(error);
        await new Promise((resolve) => setTimeout(resolve, retryPauseMs(failures++)));
        continue;
      }
      failures = 0;
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
    const seconds = this.#secondsOf(event.time);
    // Erased seqs take their successor's time, so times stay ordered for the binary search.
    if (event.seq === this.#indexed + 1) this.#times[this.#indexed] = seconds;
    else this.#times.fill(seconds, this.#indexed, event.seq);
    this.#indexed = event.seq;
    // A new customer's id is above every id so far (ULIDs grow with time): set, not get then set.
    if (event.id > this.#maxId) {
      this.#maxId = event.id;
      this.#seqsOf.set(event.id, event.seq);
    } else this.#putSeq(event.id, event.seq);
    if (event.type === "customer.deleted") this.#deletes.push({ seq: event.seq, id: event.id });
  }

  #putSeq(id: string, seq: number): void {
    const seqs = this.#seqsOf.get(id);
    if (seqs === undefined) this.#seqsOf.set(id, seq);
    else if (typeof seqs === "number") this.#seqsOf.set(id, [seqs, seq]);
    else seqs.push(seq);
  }

  /** Whole epoch seconds of a time; writes in one millisecond share its text, so keep the last. */
  #secondsOf(time: string): number {
    if (time !== this.#lastTime) {
      this.#lastTime = time;
      this.#lastSeconds = Math.floor(Date.parse(time) / 1000);
    }
    return this.#lastSeconds;
  }
}
