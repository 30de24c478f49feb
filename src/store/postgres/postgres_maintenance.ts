import type { SnapshotSource } from "../snapshot_source.ts";
import type { RecoveryReport, StoreMaintenance } from "../store_maintenance.ts";
import type { PostgresEventStore } from "./postgres_event_store.ts";
import { loadSnapshot, writeSnapshot } from "./pg_snapshots.ts";
import { dropExpired, eraseDeleted } from "./pg_retention.ts";

/** When the PostgreSQL store snapshots and drops expired events. */
export interface PostgresMaintenanceOptions {
  /** Snapshot once this many events were applied since the last snapshot (default 100,000). */
  snapshotEvery?: number;
  /** EVENT_RETENTION: events older than this go once a snapshot covers them (default: kept). */
  retentionMs?: number;
  /** Compact at least this often while writes go on (default 1 h), so retention runs. */
  compactEveryMs?: number;
  /** Milliseconds since the epoch. */
  clock?: () => number;
  /** Told how each background compaction ended: undefined when it succeeded, else the error. */
  onOutcome?: (error: unknown) => void;
}

/**
 * Recovery, erasure, snapshots and retention of the PostgreSQL store. Startup loads the newest
 * snapshot and replays the events after it. A delete erases at once (pg_retention.ts); a
 * compaction (every `snapshotEvery` events, hourly while writes go on, after a startup that
 * replayed events, at shutdown) also writes a snapshot and deletes expired events.
 */
export class PostgresMaintenance implements StoreMaintenance {
  #store: PostgresEventStore;
  #source: SnapshotSource;
  #options: Required<Omit<PostgresMaintenanceOptions, "onOutcome">> & PostgresMaintenanceOptions;
  #snapshotSeq = 0;
  #compactedSeq = 0;
  /** Deletes up to this seq are erased (after a start: the database's horizon, read at open). */
  #erasedSeq = 0;
  #compactedAt: number;
  #running: Promise<void> | undefined;
  #eraseAgain = false;

  constructor(
    store: PostgresEventStore,
    source: SnapshotSource,
    options: PostgresMaintenanceOptions = {},
  ) {
    this.#store = store;
    this.#source = source;
    this.#options = {
      snapshotEvery: 100_000,
      retentionMs: Number.POSITIVE_INFINITY,
      compactEveryMs: 3_600_000,
      clock: Date.now,
      ...options,
    };
    this.#compactedAt = this.#options.clock();
  }

  /** Loads the newest snapshot, then replays the events after it. */
  async recover(): Promise<RecoveryReport> {
    // Deletes up to the database's erasure horizon are erased: the first erasure starts there.
    this.#erasedSeq = this.#store.erasedSeq;
    const snapshot = await loadSnapshot(this.#store.pool, this.#source);
    this.#snapshotSeq = snapshot.seq;
    const eventsReplayed = await this.#source.replay(snapshot.seq);
    return { snapshotSeq: snapshot.seq, snapshotRecords: snapshot.records, eventsReplayed };
  }

  /** A delete erases in the background; enough events or time since the last one compact. */
  noteCommit(event: { type: string }): void {
    const due = this.#source.appliedSeq - this.#snapshotSeq >= this.#options.snapshotEvery ||
      this.#options.clock() - this.#compactedAt >= this.#options.compactEveryMs;
    if (due) this.startCompaction();
    // During a compaction, the delete is erased right after it (the compaction may have read less).
    if (event.type === "customer.deleted") this.#startErasure();
  }

  /** Compacts in the background unless one is running; failures are reported, never thrown. */
  startCompaction(): void {
    this.#running ??= this.#background(() => this.compact());
  }

  #startErasure(): void {
    if (this.#running !== undefined) {
      this.#eraseAgain = true; // The delete may be after what the running one erases.
      return;
    }
    this.#running = this.#background(async () => {
      do {
        this.#eraseAgain = false;
        await this.#erase();
      } while (this.#eraseAgain);
    });
  }

  #background(work: () => Promise<void>): Promise<void> {
    return work()
      .then(() => this.#options.onOutcome?.(undefined), (error) => this.#options.onOutcome?.(error))
      .finally(() => {
        this.#running = undefined;
        if (this.#eraseAgain) this.#startErasure();
      });
  }

  /** Erases deleted customers, writes a snapshot of the applied state, drops expired events. */
  async compact(): Promise<void> {
    const seq = this.#source.appliedSeq;
    this.#compactedAt = this.#options.clock();
    await this.#erase();
    await writeSnapshot(this.#store.pool, this.#source);
    this.#snapshotSeq = seq;
    if (Number.isFinite(this.#options.retentionMs)) {
      await dropExpired(this.#store.pool, this.#options.retentionMs, this.#options.clock());
    }
    this.#compactedSeq = seq;
  }

  async #erase(): Promise<void> {
    const seq = this.#source.appliedSeq;
    await eraseDeleted(this.#store.pool, this.#erasedSeq, seq);
    this.#erasedSeq = seq;
    // This replica's memory forgets them at once, without waiting for the notification.
    this.#store.noteErased(seq);
  }

  /** Compacts when something was applied since the last compaction (a clean shutdown calls this). */
  async compactIfChanged(): Promise<void> {
    if (this.#source.appliedSeq !== this.#compactedSeq) await this.compact();
  }

  /** Waits for a running erasure or compaction. */
  async settle(): Promise<void> {
    this.#eraseAgain = false;
    await this.#running;
  }
}
