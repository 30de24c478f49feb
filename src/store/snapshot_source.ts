import type { ReplayedEvent } from "./event_store.ts";
import type { VersionSource } from "./stream_versions.ts";

/**
 * The state a store's recovery and compaction work on, owned by the service: records are opaque
 * JSON objects as text that only the source reads, so a backend that snapshots needs nothing
 * from customers/ or read_model/. A record whose last member is the object `data` may come back
 * split (the rest, and `data`'s text as a string of its own), so a large payload is kept as it
 * was read, without slicing. CustomerSnapshots implements it.
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
 * A source that can move on to a newer snapshot while it serves: a replica of a shared log that
 * was cut off until the events it missed were dropped by retention starts over from the newest
 * snapshot without a restart.
 */
export interface ReloadableSource extends SnapshotSource {
  /**
   * Makes the state the snapshot's at `seq` (after appliedSeq) in one synchronous step, so no
   * reader sees half of it; appliedSeq becomes `seq`.
   */
  jumpTo(seq: number, records: readonly string[]): void;
}

/**
 * The erasure and retention rule every compaction applies: an event stays when the state at
 * `snapshotSeq` does not cover it yet, or when it is a live customer's latest event (it carries the
 * whole customer, so a replay without the snapshot still restores it); else, once older than
 * `expiredBeforeMs` (EVENT_RETENTION), it goes; until then it stays when its customer is live or
 * when it is the delete itself (no personal data: the tombstone a lagging consumer needs).
 */
export function keepsEvent(
  source: SnapshotSource,
  event: Pick<ReplayedEvent, "seq" | "id" | "type" | "version" | "time">,
  snapshotSeq: number,
  expiredBeforeMs = -Infinity,
): boolean {
  if (event.seq > snapshotSeq) return true;
  const live = source.isLive(event.id);
  if (live && source.versionOf(event.id) === event.version) return true;
  if (expiredBeforeMs > -Infinity && Date.parse(event.time) < expiredBeforeMs) return false;
  return live || event.type === "customer.deleted";
}
