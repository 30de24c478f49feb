import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { LogTruncatedError, StoreClosedError } from "../store/store_errors.ts";
import type { AppliedState } from "./applied_state.ts";

/** Told of an event another writer of a shared store committed, after it is applied here. */
export type FollowListener = (event: ReplayedEvent) => void;

/**
 * Applies the events other writers of a shared store (the other replicas) committed, in seq
 * order: when the follower is woken by the store, and when a command needs the log's newest state.
 */
export class LogFollower {
  #store: EventStore;
  #state: AppliedState;
  #listeners: FollowListener[] = [];
  #catchingUp: Promise<void> | undefined;
  #reload: (() => Promise<boolean>) | undefined;

  constructor(store: EventStore, state: AppliedState) {
    this.#store = store;
    this.#state = state;
  }

  /** The sequence number of the last event applied. */
  get appliedSeq(): number {
    return this.#state.appliedSeq;
  }

  /** Adds a listener called for each event another replica wrote, once applied here, in seq order. */
  addFollowListener(listener: FollowListener): void {
    this.#listeners.push(listener);
  }

  /**
   * How catching up goes on when the log no longer holds the next event to apply (a shared log's
   * retention dropped it while this replica was cut off): `reload` moves the state on to a newer
   * snapshot (jumpTo) and resolves true, or false when none is newer. Without it, catchUp rejects.
   */
  onLogTruncated(reload: () => Promise<boolean>): void {
    this.#reload = reload;
  }

  /**
   * Applies the events other writers committed after appliedSeq, in seq order, up to the store's
   * lastSeq; concurrent calls share one pass.
   */
  catchUp(): Promise<void> {
    this.#catchingUp ??= this.#readLog().finally(() => (this.#catchingUp = undefined));
    return this.#catchingUp;
  }

  async #readLog(): Promise<void> {
    const state = this.#state;
    while (state.appliedSeq < this.#store.lastSeq) {
      const head = this.#store.lastSeq;
      let events: ReplayedEvent[];
      try {
        events = await this.#store.readFrom(state.appliedSeq, 1000);
      } catch (error) {
        const reload = this.#reload;
        if (!(error instanceof LogTruncatedError) || reload === undefined || !(await reload())) {
          throw error;
        }
        continue; // Moved on to a snapshot: read on from its seq.
      }
      // Nothing left but seqs that erasure removed: the state is at the head.
      if (events.length === 0) state.moveTo(Math.max(state.appliedSeq, head));
      for (const event of events) {
        if (!state.apply(event, event.dataJson)) continue;
        for (const listener of this.#listeners) listener(event);
      }
    }
  }
}

/**
 * Keeps a replica's state up with a log other replicas write to: each time the store's lastSeq
 * moves past what was applied, the follower catches up. A failure (the database away) goes to
 * `onError` and is tried again after a pause that grows to 5 s; `onRecovered` is told when a
 * catch-up works again. Returns a stop function.
 */
export function followLog(
  store: EventStore,
  follower: LogFollower,
  onError: (error: unknown) => void,
  onRecovered: () => void = () => {},
): () => void {
  const controller = new AbortController();
  const signal = controller.signal;
  void (async () => {
    let failures = 0;
    while (!signal.aborted) {
      try {
        await store.waitForCommit(follower.appliedSeq, signal);
        await follower.catchUp();
        if (failures > 0) onRecovered();
        failures = 0;
      } catch (error) {
        if (signal.aborted || error instanceof StoreClosedError) return;
        onError(error);
        // The database is away: try again shortly (the store reconnects by itself).
        const pause = Math.min(5000, 250 * 2 ** failures++);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  })();
  return () => controller.abort(new Error("The log follower stopped"));
}
