import type { ReplayedEvent } from "./event_store.ts";
import type { VersionSource } from "./stream_versions.ts";

/**
 * The state a store's recovery and compaction work on, owned by the service: records are opaque
 * JSON text, and a record may come back split before its last member `data`, kept as read.
 * CustomerSnapshots implements it.
 */
export interface SnapshotSource extends VersionSource {
  /** The state now as records, captured at the call. */
  records(): Iterable<string>;
  restore(record: string, data?: string): void;
  /** The customer a record belongs to, so compaction can drop erased customers' records. */
  idOf(record: string, data?: string): string;
  isLive(id: string): boolean;
  /** Replays the store's events after `afterSeq` into the state; resolves with their number. */
  replay(afterSeq: number): Promise<number>;
}

/** A source that can move on to a newer snapshot while serving (a replica retention cut off). */
export interface ReloadableSource extends SnapshotSource {
  /** Makes the state the snapshot's at `seq` in one synchronous step, so no reader sees half. */
  jumpTo(seq: number, records: readonly string[]): void;
}

/**
 * The erasure and retention rule: an event stays when the snapshot does not cover it, or it is a
 * live customer's latest; else, until expired, when its customer is live or it is the delete.
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
