import type { SnapshotSource } from "../snapshot_source.ts";
import type { RecoveryReport, StoreMaintenance } from "../store_maintenance.ts";
import type { PostgresEventStore } from "./postgres_event_store.ts";

/**
 * Erasure on PostgreSQL, for every replica at once: the earlier events of a deleted customer (up to
 * the seq this replica has applied) and its idempotency keys are deleted; its delete stays.
 */
const ERASE = `WITH gone AS (
    DELETE FROM events e WHERE e.seq <= $1 AND e.type <> 'customer.deleted' AND EXISTS (
      SELECT 1 FROM events d
      WHERE d.customer_id = e.customer_id AND d.type = 'customer.deleted' AND d.seq <= $1)
    RETURNING e.seq)
  DELETE FROM idempotency_keys k USING gone WHERE k.seq = gone.seq`;

/** Recovery (a full replay from the database) and erasure of the PostgreSQL store. */
export class PostgresMaintenance implements StoreMaintenance {
  #store: PostgresEventStore;
  #source: SnapshotSource;
  #compactedSeq = 0;
  #running: Promise<void> | undefined;

  constructor(store: PostgresEventStore, source: SnapshotSource) {
    this.#store = store;
    this.#source = source;
  }

  /** Replays the whole log into the source. */
  async recover(): Promise<RecoveryReport> {
    const eventsReplayed = await this.#source.replay(0);
    return { snapshotSeq: 0, snapshotRecords: 0, eventsReplayed };
  }

  /** A delete starts an erasure in the background. */
  noteCommit(event: { type: string }): void {
    if (event.type === "customer.deleted") this.startCompaction();
  }

  /** Erases in the background unless an erasure is running; failures retry at the next delete. */
  startCompaction(): void {
    this.#running ??= this.compact().catch(() => {}).finally(() => (this.#running = undefined));
  }

  /** Deletes the earlier events of every customer deleted up to the applied seq. */
  async compact(): Promise<void> {
    const seq = this.#source.appliedSeq;
    await this.#store.pool.query(ERASE, [seq]);
    this.#compactedSeq = seq;
  }

  /** Erases when something was applied since the last erasure. */
  async compactIfChanged(): Promise<void> {
    if (this.#source.appliedSeq !== this.#compactedSeq) await this.compact();
  }

  /** Waits for a running erasure. */
  async settle(): Promise<void> {
    await this.#running;
  }
}
