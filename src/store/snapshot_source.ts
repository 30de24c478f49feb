import type { ReplayedEvent } from "./event_store.ts";
import type { VersionSource } from "./stream_versions.ts";

/**
 * The state a store's recovery and compaction work on, owned by the service: records are opaque
 * JSON objects as text that only the source reads, so a backend that snapshots needs nothing
 * from customers/ or read_model/. A record whose last member is the object `data` may come back
 * split (the rest, and `data`'s text as a string of its own), so a large payload is kept as it
 * was read, without slicing. CustomerService implements it.
 */
export interface SnapshotSource extends VersionSource {
  /** The state now as records, captured at the call (later changes do not alter them). */
  records(): Iterable<string>;
  /** Restores one record that records() yielded into an empty source. */
  restore(record: string, data?: string): void;
  /** The customer a record belongs to, so compaction can drop the records of erased customers. */
  idOf(record: string, data?: string): string;
  /** True when the customer is live in the applied state. */
  isLive(id: string): boolean;
  /** Replays the store's events after `afterSeq` into the state; resolves with their number. */
  replay(afterSeq: number): Promise<number>;
}

/**
 * The erasure rule every compaction applies: an event stays when the state at `snapshotSeq` does
 * not cover it yet, when its customer is live, or when it is the delete itself (no personal data).
 */
export function keepsEvent(
  source: SnapshotSource,
  event: Pick<ReplayedEvent, "seq" | "id" | "type">,
  snapshotSeq: number,
): boolean {
  return event.seq > snapshotSeq || event.type === "customer.deleted" || source.isLive(event.id);
}

/** What recovery did, for the startup log line. */
export interface RecoveryReport {
  snapshotSeq: number;
  snapshotRecords: number;
  eventsReplayed: number;
}

/**
 * A backend's recovery and housekeeping over a SnapshotSource: the JSONL backend snapshots and
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
