/** The smallest SnapshotSource a service could be: each customer's version and whether it lives. */
import type { EventStore, ReplayedEvent, StoredEvent } from "../../src/store/event_store.ts";
import type { ReloadableSource } from "../../src/store/snapshot_source.ts";

interface Stream {
  version: number;
  live: boolean;
}

/** Holds what the contract suite's events say about each customer, as a service's state would. */
export class ContractSource implements ReloadableSource {
  #store: EventStore;
  #streams = new Map<string, Stream>();
  appliedSeq = 0;

  constructor(store: EventStore) {
    this.#store = store;
  }

  /** Applies events in seq order (replayed, or just appended). */
  apply(events: readonly (ReplayedEvent | StoredEvent)[]): void {
    for (const event of events) {
      this.#streams.set(event.id, {
        version: event.version,
        live: event.type !== "customer.deleted",
      });
      this.appliedSeq = event.seq;
    }
  }

  records(): Iterable<string> {
    return [...this.#streams].filter(([, stream]) => stream.live)
      .map(([id, { version }]) => JSON.stringify({ id, version }));
  }

  restore(line: string): void {
    const { id, version } = JSON.parse(line);
    this.#streams.set(id, { version, live: true });
  }

  jumpTo(seq: number, lines: readonly string[]): void {
    this.#streams.clear();
    for (const line of lines) this.restore(line);
    this.appliedSeq = seq;
  }

  idOf(line: string): string {
    return JSON.parse(line).id;
  }

  isLive(id: string): boolean {
    return this.#streams.get(id)?.live ?? false;
  }

  versionOf(id: string): number | undefined {
    const stream = this.#streams.get(id);
    return stream?.live ? stream.version : undefined;
  }

  replay(afterSeq: number): Promise<number> {
    this.appliedSeq = afterSeq;
    return this.#store.replay((event) => this.apply([event]), afterSeq);
  }
}
