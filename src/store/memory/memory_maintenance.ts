import type { MemoryEventStore } from "./memory_event_store.ts";
import { keepsEvent, type SnapshotSource } from "../snapshot_source.ts";
import type { RecoveryReport, StoreMaintenance } from "../store_maintenance.ts";

/** Recovery and compaction of the memory store: a full replay, and erasure in place. */
export class MemoryMaintenance implements StoreMaintenance {
  #store: MemoryEventStore;
  #source: SnapshotSource;
  #compactedSeq = 0;

  constructor(store: MemoryEventStore, source: SnapshotSource) {
    this.#store = store;
    this.#source = source;
  }

  async recover(): Promise<RecoveryReport> {
    const eventsReplayed = await this.#source.replay(0);
    return { snapshotSeq: 0, snapshotRecords: 0, eventsReplayed };
  }

  /** Compaction is explicit here: nothing starts on its own. */
  noteCommit(): void {}

  startCompaction(): void {
    void this.compact();
  }

  /** Erases the events of customers that are no longer live, keeping their deletes. */
  compact(): Promise<void> {
    const seq = this.#source.appliedSeq;
    this.#store.erase((event) => keepsEvent(this.#source, event, seq), seq);
    this.#compactedSeq = seq;
    return Promise.resolve();
  }

  async compactIfChanged(): Promise<void> {
    if (this.#source.appliedSeq !== this.#compactedSeq) await this.compact();
  }

  settle(): Promise<void> {
    return Promise.resolve();
  }
}
