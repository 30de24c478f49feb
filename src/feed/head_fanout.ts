import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { type FeedReader, matches, type PageRequest } from "./feed_reader.ts";
import { filterKey, framesChunk, UNFILTERED } from "./sse_frames.ts";

/** A stream waiting at the head of the log. */
export interface HeadSubscriber {
  /** Its filters: subscribers with the same ones share one chunk per commit batch. */
  readonly request: PageRequest;
  /**
   * The position it joined at. A stream that read to the store's head itself can be ahead of the
   * head reader (which batches commits): it is then handed only the events after this position.
   */
  readonly position: number;
  /**
   * Takes the frames of the new events its filters let through, read and encoded once for every
   * subscriber (only the part after its own position while it is ahead); returns false to leave
   * (its consumer has no room: it catches up by itself).
   */
  deliver(chunk: Uint8Array): boolean;
  /** The head reader stopped: the stream reads by itself again. */
  release(): void;
}

const HEAD_PAGE = 1000;

/**
 * The least time between two batches (ms) for this many streams at the head. Each batch costs
 * every stream a socket write on the server's one thread (about 13 µs of CPU per stream on the
 * development machine, half of it the kernel's loopback send, and a read in a client on the same
 * host), so the interval grows with the streams:
 *
 * - up to 250 streams, 1 ms per 10 streams: batches cost at most about 0.13 s of CPU per second,
 *   whatever the write rate;
 * - from 250 to 1,000 streams, 25 ms: the wait is spent from the delivery budget (p99 ≤ 50 ms
 *   from the write's decision), beside the group commit;
 * - beyond 1,000 streams, 1 ms per 40 streams, so the batches' CPU stays near half a core (40
 *   batches a second at 1,000 streams) instead of growing with the streams.
 *
 * Measured at 1,000 streams and 500 writes/s (three alternating 12 s runs each, 2-core machine,
 * stream client on the same host): 15 ms kept the server's thread busy (1.0–1.2 s of CPU per
 * second) and p99 was 46–75 ms; 20 ms took 0.7–0.85 s/s, near that knee, and p99 swung 32–66 ms
 * as commits queued behind the batches' writes; 25 ms took 0.57–0.68 s/s with p99 35–40 ms;
 * 30 ms 43–46 ms, the wait itself then outweighing what it saves. When the same machine ran
 * slower later (a socket write costing more), 25 ms gave p99 45–92 ms and no interval met 50 ms
 * reliably: `deno task bench --only=feed` measures it.
 */
export function batchInterval(streams: number): number {
  return Math.max(Math.min(streams / 10, 25), streams / 40);
}

/**
 * One reader at the head of the log for every stream that is caught up: each commit batch is
 * waited for, read and encoded once per distinct filter, then pushed into every matching stream.
 * A stream whose filters let nothing through costs nothing per write: its group is skipped.
 */
export class HeadFanOut {
  #store: EventStore;
  #reader: FeedReader;
  /** Subscribers by filter key. */
  #groups = new Map<string, Set<HeadSubscriber>>();
  #head = -1;
  #running = false;
  /** When the last batch was read (performance.now()). */
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

  /**
   * The position a subscriber has been handed everything up to: the head reader's, or its own
   * while it is still ahead. It never goes back, so neither do its bookmarks.
   */
  positionOf(subscriber: HeadSubscriber): number {
    return Math.max(this.#head, subscriber.position);
  }

  /**
   * Subscribes a stream at `subscriber.position`; false when that is behind the head reader (it
   * reads by itself up to the head first). A stream ahead joins too: under steady writes the
   * head reader trails the newest commit by up to its batching interval, and a stream that
   * opened or caught up meanwhile would otherwise read the log by itself on every commit.
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

  /** Unsubscribes a stream (it closed, or reads by itself again). */
  leave(subscriber: HeadSubscriber): void {
    const key = filterKey(subscriber.request);
    const group = this.#groups.get(key);
    if (group?.delete(subscriber) && group.size === 0) this.#groups.delete(key);
  }

  /** Stops the reader (at shutdown). */
  close(): void {
    this.#closed.abort();
  }

  async #run(): Promise<void> {
    try {
      while (true) {
        await this.#store.waitForCommit(this.#head, this.#closed.signal);
        // A commit after a quiet spell goes out at once; commits closer together than the
        // interval gather into the next batch, one read and one write per stream.
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

  /** The least time between two batches for the streams subscribed now. */
  #interval(): number {
    let streams = 0;
    for (const group of this.#groups.values()) streams += group.size;
    return batchInterval(streams);
  }

  /**
   * Encodes what one filter group wants from the events after `after` once, and pushes it into
   * each of its streams; a stream still ahead of `after` gets only the events after its own
   * position, encoded for it alone (it is rare, and usually lasts one batch).
   */
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
