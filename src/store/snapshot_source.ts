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
