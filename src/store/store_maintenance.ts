import type { ReplayedEvent } from "./event_store.ts";

/** What recovery did, for the startup log line. */
export interface RecoveryReport {
  snapshotSeq: number;
  snapshotRecords: number;
  eventsReplayed: number;
}

/** A backend's recovery and housekeeping over a SnapshotSource; the composition root runs it. */
export interface StoreMaintenance {
  /** Loads the newest usable state into the source and replays the log after it. */
  recover(): Promise<RecoveryReport>;
  noteCommit(event: Pick<ReplayedEvent, "type">): void;
  startCompaction(): void;
  /** Compacts now: erases the events of customers that are no longer live (keepsEvent). */
  compact(): Promise<void>;
  /** Compacts unless nothing was applied since the last one (a clean shutdown calls this). */
  compactIfChanged(): Promise<void>;
  settle(): Promise<void>;
}
