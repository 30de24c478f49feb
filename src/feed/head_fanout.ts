import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { type FeedReader, matches, type PageRequest } from "./feed_reader.ts";
import { filterKey, framesChunk, UNFILTERED } from "./sse_frames.ts";

/** A stream waiting at the head of the log. */
export interface HeadSubscriber {
  /** Its filters: subscribers with the same ones share one chunk per commit batch. */
  readonly request: PageRequest;
  /** The position it joined at; while ahead of the head reader it gets only later events. */
  readonly position: number;
  /** Takes the frames its filters let through; false to leave (no room: it catches up alone). */
  deliver(chunk: Uint8Array): boolean;
  /** The head reader stopped: the stream reads by itself again. */
  release(): void;
}

const HEAD_PAGE = 1000;

/**
 * The least time (ms) between two batches for this many streams: each batch costs every stream a
 * socket write on the one thread, so the interval grows with them. `bench --only=feed` measures it.
 */
export function batchInterval(streams: number): number {
  return Math.max(Math.min(streams / 10, 25), streams / 40);
}

/** One reader at the head of the log: each commit batch is read and encoded once per filter. */
export class HeadFanOut {
  #store: EventStore;
  #reader: FeedReader;
  #groups = new Map<string, Set<HeadSubscriber>>();
  #head = -1;
  #running = false;
  #lastBatch = -Infinity;
  #closed = new AbortController();

  constructor(store: EventStore, reader: FeedReader) {
    this.#store = store;
    this.#reader = reader;
  }

  /** The position the head reader has read up to (filtered-out events included). */
  get head(): number {
    return this.#head;
  }

  /** What a subscriber has been handed up to; it never goes back, so neither do its bookmarks. */
  positionOf(subscriber: HeadSubscriber): number {
    return Math.max(this.#head, subscriber.position);
  }

  /**
   * Subscribes a stream; false when it is behind the head reader. A stream ahead joins too, or it
   * would read the log by itself on every commit while the head reader trails by its interval.
   */
  join(subscriber: HeadSubscriber): boolean {
    if (!this.#running) {
      this.#head = subscriber.position;
      this.#running = true;
      this.#run();
    }
    if (subscriber.position < this.#head) return false;
    const key = filterKey(subscriber.request);
    const group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, new Set([subscriber]));
    else group.add(subscriber);
    return true;
  }

  leave(subscriber: HeadSubscriber): void {
    const key = filterKey(subscriber.request);
    const group = this.#groups.get(key);
    if (group?.delete(subscriber) && group.size === 0) this.#groups.delete(key);
  }

  close(): void {
    this.#closed.abort();
  }

  async #run(): Promise<void> {
    try {
      while (true) {
        await this.#store.waitForCommit(this.#head, this.#closed.signal);
        // A commit after a quiet spell goes out at once; closer ones gather into the next batch.
        const wait = this.#lastBatch + this.#interval() - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.#lastBatch = performance.now();
        const page = await this.#reader.read({
          after: this.#head,
          limit: HEAD_PAGE,
          types: new Set(),
        });
        const after = this.#head;
        this.#head = page.lastSeq;
        for (const [key, group] of this.#groups) this.#push(key, group, page.events, after);
        if (this.#groups.size === 0) return;
      }
    } catch {
      // Closed, or a read failed: every stream goes back to reading by itself.
    } finally {
      // Synchronously with the exit, so a join from now on starts a new reader.
      this.#running = false;
      const groups = [...this.#groups.values()];
      this.#groups.clear();
      for (const group of groups) for (const subscriber of group) subscriber.release();
    }
  }

  #interval(): number {
    let streams = 0;
    for (const group of this.#groups.values()) streams += group.size;
    return batchInterval(streams);
  }

  /** Encodes one filter group's events once; a stream still ahead gets its own, rarer, chunk. */
  #push(
    key: string,
    group: Set<HeadSubscriber>,
    events: readonly ReplayedEvent[],
    after: number,
  ): void {
    const [first] = group;
    const wanted = key === UNFILTERED
      ? events
      : events.filter((event) => matches(first.request, event));
    const chunk = framesChunk(wanted);
    if (chunk === undefined) return;
    for (const subscriber of group) {
      const own = subscriber.position > after
        ? framesChunk(wanted.filter((event) => event.seq > subscriber.position))
        : chunk;
      if (own !== undefined && !subscriber.deliver(own)) group.delete(subscriber);
    }
    if (group.size === 0) this.#groups.delete(key);
  }
}
