import type { ReplayedEvent } from "./event_store.ts";

/** What recovery did, for the startup log line. */
export interface RecoveryReport {
  snapshotSeq: number;
  snapshotRecords: number;
  eventsReplayed: number;
}

/**
 * A backend's recovery and housekeeping over a SnapshotSource (snapshot_source.ts): the JSONL backend snapshots and
 * rewrites segments; the memory store erases in place. The composition root starts and stops it.
 */
export interface StoreMaintenance {
  /** Loads the newest usable state into the source and replays the log after it. */
  recover(): Promise<RecoveryReport>;
  /** A commit listener: may start a compaction in the background. */
  noteCommit(event: Pick<ReplayedEvent, "type">): void;
  /** Starts a compaction unless one is running; failures are logged, never thrown. */
  startCompaction(): void;
  /** Compacts now: erases the events of customers that are no longer live (keepsEvent). */
  compact(): Promise<void>;
  /** Compacts unless nothing was applied since the last compaction (a clean shutdown calls this). */
  compactIfChanged(): Promise<void>;
  /** Waits for a running compaction and cancels a scheduled one. */
  settle(): Promise<void>;
}
