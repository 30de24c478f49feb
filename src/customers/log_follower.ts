import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { LogTruncatedError, StoreClosedError } from "../store/store_errors.ts";
import type { AppliedState } from "./applied_state.ts";
import { retryPauseMs } from "../lib/retry_pause.ts";

/** Told of an event another writer of a shared store committed, after it is applied here. */
export type FollowListener = (event: ReplayedEvent) => void;

/** Applies, in seq order, the events other replicas committed to a shared store. */
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
   * What catchUp does when retention dropped the next event to apply: `reload` jumps to a newer
   * snapshot and resolves true, or false when none is newer. Without it, catchUp rejects.
   */
  onLogTruncated(reload: () => Promise<boolean>): void {
    this.#reload = reload;
  }

  /** Applies other writers' events after appliedSeq up to lastSeq; calls at once share a pass. */
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
 * Catches the follower up each time the shared log's lastSeq moves past what was applied. A failure
 * goes to `onError` and is retried after a growing pause; `onRecovered` hears when one works.
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
        const pause = retryPauseMs(failures++);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  })();
  return () => controller.abort(new Error("The log follower stopped"));
}
