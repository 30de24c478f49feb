import type {
  AppendOptions,
  EventStore,
  NewEvent,
  ReplayedEvent,
  StoredEvent,
} from "../event_store.ts";
import { CommitWaiters } from "../commit_waiters.ts";
import { StoreClosedError } from "../store_errors.ts";
import { StreamVersions } from "../stream_versions.ts";

/** The storage behind memory stores: outlives a store, so a reopen sees what was appended. */
export class MemoryLog {
  events: ReplayedEvent[] = [];
  lastSeq = 0;
  erasedSeq = 0;
}

/** The reference EventStore: the port's behaviour with nothing but an array. */
export class MemoryEventStore implements EventStore {
  #log: MemoryLog;
  #versions = new StreamVersions();
  #waiters = new CommitWaiters();
  #replayed = false;
  #closed = false;

  /** A store over `log` (a fresh one by default); reopening the same log is a restart. */
  constructor(log: MemoryLog = new MemoryLog()) {
    this.#log = log;
  }

  get lastSeq(): number {
    return this.#log.lastSeq;
  }

  get erasedSeq(): number {
    return this.#log.erasedSeq;
  }

  replay(onEvent: (event: ReplayedEvent) => void, afterSeq = 0): Promise<number> {
    if (this.#replayed) return Promise.reject(new Error("The log was already replayed"));
    let delivered = 0;
    for (const event of this.#log.events) {
      this.#versions.noteReplayed(event.id, event.version, event.seq);
      if (event.seq > afterSeq) {
        delivered++;
        onEvent({ ...event });
      }
    }
    this.#replayed = true;
    return Promise.resolve(delivered);
  }

  /** Appends at once; the batch is all or nothing. */
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    if (!this.#replayed) return Promise.reject(new Error("Replay the log before appending"));
    try {
      this.#versions.check(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const stored: StoredEvent[] = [];
    for (const { dataJson, ...event } of events) {
      const seq = ++this.#log.lastSeq;
      const next = { ...event, seq } as StoredEvent;
      stored.push(next);
      const { data, ...envelope } = next;
      const json = data === null ? null : dataJson ?? JSON.stringify(data);
      this.#log.events.push({ ...envelope, dataJson: json });
      this.#versions.noteDurable(event.id, event.version, seq);
    }
    this.#waiters.notify(this.#log.lastSeq);
    return Promise.resolve(stored);
  }

  readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    const events = this.#log.events;
    // Binary search: seqs ascend, with gaps where events were erased.
    let low = 0;
    let high = events.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (events[mid].seq <= afterSeq) low = mid + 1;
      else high = mid;
    }
    return Promise.resolve(events.slice(low, low + limit).map((event) => ({ ...event })));
  }

  waitForCommit(afterSeq: number, signal?: AbortSignal): Promise<number> {
    return this.#waiters.wait(afterSeq, this.#log.lastSeq, signal);
  }

  /** Removes every event `keep` refuses (compaction) and moves the horizon to `erasedSeq`. */
  erase(keep: (event: ReplayedEvent) => boolean, erasedSeq = 0): number {
    const before = this.#log.events.length;
    this.#log.events = this.#log.events.filter(keep);
    this.#log.erasedSeq = Math.max(this.#log.erasedSeq, erasedSeq);
    return before - this.#log.events.length;
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#waiters.rejectAll(new StoreClosedError());
    return Promise.resolve();
  }
}
