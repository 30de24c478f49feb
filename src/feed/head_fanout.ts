import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import type { FeedReader } from "./feed_reader.ts";

/** A stream waiting at the head of the log. */
export interface HeadSubscriber {
  /**
   * Takes the events committed after the head (already read once for every subscriber) and the
   * new head; returns false to leave (its consumer has no room: it catches up by itself).
   */
  deliver(events: readonly ReplayedEvent[], head: number): boolean;
  /** The head reader stopped: the stream reads by itself again. */
  release(): void;
}

const HEAD_PAGE = 1000;

/**
 * One reader at the head of the log for every stream that is caught up: each commit is waited
 * for and read once, then handed to all of them, instead of each stream waking and reading alone.
 */
export class HeadFanOut {
  #store: EventStore;
  #reader: FeedReader;
  #coalesceMs: number;
  #subscribers = new Set<HeadSubscriber>();
  #head = -1;
  #running = false;
  #closed = new AbortController();

  constructor(store: EventStore, reader: FeedReader, coalesceMs: number) {
    this.#store = store;
    this.#reader = reader;
    this.#coalesceMs = coalesceMs;
  }

  /** Subscribes a stream whose position is `position`; false when that is not the head. */
  join(subscriber: HeadSubscriber, position: number): boolean {
    if (!this.#running) {
      this.#head = position;
      this.#running = true;
      this.#run();
    }
    if (position !== this.#head) return false;
    this.#subscribers.add(subscriber);
    return true;
  }

  /** Unsubscribes a stream (it closed, or reads by itself again). */
  leave(subscriber: HeadSubscriber): void {
    this.#subscribers.delete(subscriber);
  }

  /** Stops the reader (at shutdown). */
  close(): void {
    this.#closed.abort();
  }

  async #run(): Promise<void> {
    try {
      while (true) {
        await this.#store.waitForCommit(this.#head, this.#closed.signal);
        // Commits close together go out as one read and one write per stream.
        await new Promise((resolve) => setTimeout(resolve, this.#coalesceMs));
        const page = await this.#reader.read({
          after: this.#head,
          limit: HEAD_PAGE,
          types: new Set(),
        });
        this.#head = page.lastSeq;
        for (const subscriber of this.#subscribers) {
          if (!subscriber.deliver(page.events, page.lastSeq)) this.#subscribers.delete(subscriber);
        }
        if (this.#subscribers.size === 0) return;
      }
    } catch {
      // Closed, or a read failed: every stream goes back to reading by itself.
    } finally {
      // Synchronously with the exit, so a join from now on starts a new reader.
      this.#running = false;
      for (const subscriber of this.#subscribers) subscriber.release();
      this.#subscribers.clear();
    }
  }
}
