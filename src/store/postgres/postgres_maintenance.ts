import type { ReloadableSource } from "../snapshot_source.ts";
import type { RecoveryReport, StoreMaintenance } from "../store_maintenance.ts";
import type { PostgresEventStore } from "./postgres_event_store.ts";
import { loadSnapshot, readNewestSnapshot, writeSnapshot } from "./pg_snapshots.ts";
import { dropExpired, eraseDeleted } from "./pg_retention.ts";
import { whileUnreachable } from "./connection_failure.ts";

/** When the PostgreSQL store snapshots and drops expired events. */
export interface PostgresMaintenanceOptions {
  /**
   * Snapshot once this many events were applied since the last snapshot (default 100,000), or as
   * many as it holds records when more: snapshots cost at most one record per event written.
   */
  snapshotEvery?: number;
  /** EVENT_RETENTION: events older than this go once a snapshot covers them (default: kept). */
  retentionMs?: number;
  /** Compact at least this often while writes go on (default 1 h), so retention runs. */
  compactEveryMs?: number;
  /**
   * ERASE_WITHIN_SECONDS in ms (default 1 h): a delete another replica committed and did not erase
   * within half of it (that replica stopped first) is erased by this one.
   */
  eraseWithinMs?: number;
  /** Milliseconds since the epoch. */
  clock?: () => number;
  /** Told how each background compaction ended: undefined when it succeeded, else the error. */
  onOutcome?: (error: unknown) => void;
  /** Told each time the startup recovery could not reach the database (it waits and retries). */
  onRecoveryRetry?: (error: unknown) => void;
  /** Told of each snapshot this replica wrote: the seq it covers, its records, how long it took. */
  onSnapshot?: (done: { snapshot_seq: number; records: number; ms: number }) => void;
}

/**
 * Background work, each winning over those before it: an erasure, a compaction due by count (all
 * replicas count the same events: another's recent snapshot may stand), a compaction.
 */
const WORK = ["erase", "counted", "compact"] as const;
type Work = typeof WORK[number];

/** The pause before failed background work is tried again. */
const RETRY_MS = 5000;

/**
 * Recovery, erasure, snapshots and retention of the PostgreSQL store. Startup loads the newest
 * snapshot and replays the events after it. A delete erases at once (pg_retention.ts); a
 * compaction (every `snapshotEvery` events or as many as the snapshot's records, hourly while
 * writes go on, after a startup that replayed events, at shutdown) also writes a snapshot and
 * deletes expired events. Work runs one at a time; what is asked for meanwhile runs right after,
 * never skipped (see #request).
 */
export class PostgresMaintenance implements StoreMaintenance {
  #store: PostgresEventStore;
  #source: ReloadableSource;
  #options:
    & Required<Omit<PostgresMaintenanceOptions, "onOutcome" | "onRecoveryRetry" | "onSnapshot">>
    & PostgresMaintenanceOptions;
  /** Records of the newest snapshot this replica loaded or wrote (see #due). */
  #snapshotRecords = 0;
  /** The applied seq when the last compaction started: the next is due #due() events after it. */
  #compactionSeq = 0;
  #compactedSeq = 0;
  /** Deletes up to this seq are erased (after a start: the database's horizon, read at open). */
  #erasedSeq = 0;
  #compactedAt: number;
  #running: Promise<void> | undefined;
  /** What was asked for since the running work started: it runs next (a compaction wins). */
  #wanted: Work | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** The newest delete followed from another replica, and the timer that checks it was erased. */
  #followedDelete = 0;
  #followCheck: ReturnType<typeof setTimeout> | undefined;
  /** Set by settle(): nothing is tried again or checked from then on. */
  #settled = false;

  constructor(
    store: PostgresEventStore,
    source: ReloadableSource,
    options: PostgresMaintenanceOptions = {},
  ) {
    this.#store = store;
    this.#source = source;
    this.#options = {
      snapshotEvery: 100_000,
      retentionMs: Number.POSITIVE_INFINITY,
      compactEveryMs: 3_600_000,
      eraseWithinMs: 3_600_000,
      clock: Date.now,
      ...options,
    };
    this.#compactedAt = this.#options.clock();
  }

  /**
   * Loads the newest snapshot, then replays the events after it. While the database cannot be
   * reached it waits and tries again, going on from what it applied; other errors reject.
   */
  async recover(): Promise<RecoveryReport> {
    // Deletes up to the database's erasure horizon are erased: the first erasure starts there.
    this.#erasedSeq = this.#store.erasedSeq;
    const waiting = { stopped: () => this.#settled, onRetry: this.#options.onRecoveryRetry };
    const load = () => loadSnapshot(this.#store.pool, this.#source);
    const snapshot = await whileUnreachable(load, waiting);
    this.#compactionSeq = snapshot.seq;
    this.#snapshotRecords = snapshot.records;
    let eventsReplayed = 0;
    let from = snapshot.seq;
    await whileUnreachable(async () => {
      eventsReplayed += await this.#source.replay(from);
    }, { ...waiting, retry: () => from = this.#source.appliedSeq });
    return { snapshotSeq: snapshot.seq, snapshotRecords: snapshot.records, eventsReplayed };
  }

  /**
   * Moves the state on to the newest snapshot, when it is newer than what was applied: for a
   * replica cut off from the database while the events it missed were dropped by retention (the
   * log no longer holds the next event it needs; the older kept snapshot covers every dropped
   * event, so the newest one does too). Resolves with the snapshot's seq, or undefined when none
   * is newer. `onJump` runs in the same synchronous step as the jump (caches of the old state
   * forget it). The caller then catches up with the log after it.
   */
  async reload(onJump?: () => void): Promise<number | undefined> {
    const snapshot = await readNewestSnapshot(this.#store.pool);
    if (snapshot.seq <= this.#source.appliedSeq) return undefined;
    this.#source.jumpTo(snapshot.seq, snapshot.records);
    onJump?.();
    this.#compactionSeq = snapshot.seq;
    this.#snapshotRecords = snapshot.records.length;
    return snapshot.seq;
  }

  /** A delete erases in the background; enough events or time since the last one compact. */
  noteCommit(event: { type: string }): void {
    // By time it always writes a snapshot: retention drops only what the older kept one covers.
    if (this.#options.clock() - this.#compactedAt >= this.#options.compactEveryMs) {
      this.startCompaction();
    } else if (this.#source.appliedSeq - this.#compactionSeq >= this.#due()) {
      this.#request("counted");
    } else if (event.type === "customer.deleted") this.#request("erase");
  }

  /**
   * A follow listener: the replica that committed a delete erases it at once; should the erasure
   * horizon not have passed it within half of ERASE_WITHIN_SECONDS (that replica stopped before
   * erasing), this one erases it. One timer at a time checks the newest delete followed.
   */
  noteFollowed(event: { type: string; seq: number }): void {
    if (event.type !== "customer.deleted") return;
    this.#followedDelete = Math.max(this.#followedDelete, event.seq);
    if (this.#followCheck !== undefined || this.#settled) return;
    this.#followCheck = setTimeout(() => {
      this.#followCheck = undefined;
      if (this.#store.erasedSeq < this.#followedDelete) this.#request("erase");
    }, this.#options.eraseWithinMs / 2);
    Deno.unrefTimer(this.#followCheck as unknown as number);
  }

  /** Compacts in the background, after any running work; failures are reported, never thrown. */
  startCompaction(): void {
    this.#request("compact");
  }

  /**
   * Runs `work` in the background, or right after the running work when some runs: requests made
   * meanwhile coalesce into that one next run, which reads the applied seq when it starts, so a
   * delete committed while an erasure or compaction ran is erased by the next, never skipped.
   */
  #request(work: Work): void {
    if (WORK.indexOf(work) >= WORK.indexOf(this.#wanted ?? work)) this.#wanted = work;
    this.#running ??= this.#drain();
  }

  async #drain(): Promise<void> {
    while (this.#wanted !== undefined) {
      const work = this.#wanted;
      this.#wanted = undefined;
      try {
        await (work === "erase"
          ? this.#erase()
          : this.compact(work === "counted" ? this.#due() / 2 : 0));
        this.#options.onOutcome?.(undefined);
      } catch (error) {
        this.#options.onOutcome?.(error);
        // The database may be away: the work is asked for again (deletes stay to be erased).
        if (!this.#settled) {
          clearTimeout(this.#retry);
          this.#retry = setTimeout(() => this.#request(work), RETRY_MS);
          Deno.unrefTimer(this.#retry as unknown as number);
        }
      }
    }
    this.#running = undefined;
  }

  /**
   * Erases deleted customers, writes a snapshot of the applied state (none while the newest is
   * less than `recent` events old), drops expired events.
   */
  async compact(recent = 0): Promise<void> {
    const seq = this.#source.appliedSeq;
    const compactedAt = this.#compactedAt;
    this.#compactedAt = this.#options.clock();
    // Commits during this compaction do not ask for another one until #due() more.
    this.#compactionSeq = seq;
    await this.#erase();
    const { seq: newest, written } = await writeSnapshot(this.#store.pool, this.#source, recent);
    if (written !== undefined) this.#snapshotRecords = written.records;
    if (written !== undefined) this.#options.onSnapshot?.({ snapshot_seq: seq, ...written });
    if (newest < seq) {
      // Another's recent snapshot stands for this one: the next is due #due() after it,
      // the hourly one still comes (retention), and so does the one at shutdown.
      this.#compactionSeq = newest;
      this.#compactedAt = compactedAt;
      return;
    }
    if (Number.isFinite(this.#options.retentionMs)) {
      await dropExpired(this.#store.pool, this.#options.retentionMs, this.#options.clock());
    }
    this.#compactedSeq = seq;
  }

  /** Events that make a compaction due: as many as the snapshot's records, if more than the option. */
  #due(): number {
    return Math.max(this.#options.snapshotEvery, this.#snapshotRecords);
  }

  async #erase(): Promise<void> {
    const seq = this.#source.appliedSeq;
    await eraseDeleted(this.#store.pool, this.#erasedSeq, seq);
    this.#erasedSeq = Math.max(this.#erasedSeq, seq);
    // This replica's memory forgets them at once, without waiting for the notification.
    this.#store.noteErased(seq);
  }

  /** Compacts when something was applied since the last compaction (a clean shutdown calls this). */
  async compactIfChanged(): Promise<void> {
    if (this.#source.appliedSeq !== this.#compactedSeq) await this.compact();
  }

  /** Cancels the work asked for and the timers, and waits for the running work (at shutdown). */
  async settle(): Promise<void> {
    this.#settled = true;
    this.#wanted = undefined;
    clearTimeout(this.#retry);
    clearTimeout(this.#followCheck);
    this.#followCheck = undefined;
    await this.#running;
  }
}
