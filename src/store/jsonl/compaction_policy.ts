import { QuietTrigger } from "../../lib/quiet_trigger.ts";
import type { JsonlEventStore } from "./jsonl_store.ts";
import { keepsEvent, type SnapshotSource } from "../snapshot_source.ts";
import type { RecoveryReport, StoreMaintenance } from "../store_maintenance.ts";
import { compactSegment, removeSegment } from "./segment_compaction.ts";
import {
  CorruptSnapshotError,
  joinRecord,
  listSnapshots,
  readSnapshot,
  removeSnapshot,
  type SnapshotInfo,
  writeSnapshot,
} from "./snapshot_file.ts";

/** Where the policy reports compactions and their failures (the service's logger). */
export interface PolicyLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A due compaction waits for writes to pause this long, so it does not compete with a burst. */
export const QUIET_MS = 100;

/** When snapshots and compactions happen. */
export interface CompactionOptions {
  /** Compact this many events after the last snapshot once writes pause; at twice that, at once. */
  snapshotEvery: number;
  /** After a delete, compact (and so erase the customer's data) within this many milliseconds. */
  eraseWithinMs: number;
  /** Told how each background compaction ended: undefined on success, else the error. */
  onOutcome?: (error: unknown) => void;
  /** EVENT_RETENTION in ms: compaction drops older events (see keepsEvent); none keeps them. */
  retentionMs?: number;
  clock?: () => number;
}

/** The JSONL backend's snapshots, recovery and compaction, which erases deleted customers' data. */
export class CompactionPolicy implements StoreMaintenance {
  #store: JsonlEventStore;
  #source: SnapshotSource;
  #log: PolicyLog;
  #options: CompactionOptions;
  #snapshotSeq = 0;
  #running: Promise<void> | undefined;
  /** An erasure came due while a compaction ran (which may have started before the delete). */
  #again = false;
  #eraseTimer: ReturnType<typeof setTimeout> | undefined;
  #whenQuiet = new QuietTrigger(QUIET_MS, () => this.startCompaction());

  constructor(
    store: JsonlEventStore,
    source: SnapshotSource,
    log: PolicyLog,
    options: CompactionOptions,
  ) {
    this.#store = store;
    this.#source = source;
    this.#log = log;
    this.#options = options;
  }

  /** Loads the newest valid snapshot (else older ones, else none) and replays the tail. */
  async recover(): Promise<RecoveryReport> {
    this.#store.useVersionSource(this.#source);
    let loaded = { records: [] as string[], data: [] as (string | undefined)[] };
    let snapshotSeq = 0;
    for (const info of await listSnapshots(this.#store.dataDir)) {
      try {
        const records: string[] = [];
        const data: (string | undefined)[] = [];
        // Restored only once the whole file checked out, so a damaged one leaves no half state.
        await readSnapshot(info, (record, member) => {
          // Split records often share their rest (the same short head): keep one copy of it.
          records.push(record === records.at(-1) ? records.at(-1)! : record);
          data.push(member);
        });
        loaded = { records, data };
        snapshotSeq = info.seq;
        break;
      } catch (error) {
        if (!(error instanceof CorruptSnapshotError)) throw error;
        this.#log.warn("Skipping a damaged snapshot", { error: error.message });
      }
    }
    const { records, data } = loaded;
    for (let i = 0; i < records.length; i++) this.#source.restore(records[i], data[i]);
    const eventsReplayed = await this.#source.replay(snapshotSeq);
    this.#snapshotSeq = snapshotSeq;
    return { snapshotSeq, snapshotRecords: records.length, eventsReplayed };
  }

  /** A commit listener: may start a compaction in the background. */
  noteCommit(event: { type: string }): void {
    const behind = this.#store.lastSeq - this.#snapshotSeq;
    if (behind >= 2 * this.#options.snapshotEvery) this.startCompaction();
    else if (behind >= this.#options.snapshotEvery) this.#whenQuiet.poke();
    if (event.type === "customer.deleted" && this.#eraseTimer === undefined) {
      this.#eraseTimer = setTimeout(() => {
        this.#eraseTimer = undefined;
        // A compaction running now may have read the state before the delete: one more follows.
        if (this.#running === undefined) this.startCompaction();
        else this.#again = true;
      }, this.#options.eraseWithinMs);
      Deno.unrefTimer(this.#eraseTimer as unknown as number);
    }
  }

  /** Starts a compaction unless one is running; failures are logged, never thrown. */
  startCompaction(): void {
    this.#running ??= this.compact()
      .then(() => this.#options.onOutcome?.(undefined), (error) => {
        this.#log.error("Compaction failed", { error: String(error) });
        this.#options.onOutcome?.(error);
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.startCompaction();
        }
      });
  }

  /** Waits for a running compaction and cancels a scheduled one. */
  async settle(): Promise<void> {
    clearTimeout(this.#eraseTimer);
    this.#eraseTimer = undefined;
    this.#again = false;
    this.#whenQuiet.cancel();
    await this.#running;
  }

  /** Compacts unless nothing was written since the last snapshot (a clean shutdown calls this). */
  async compactIfChanged(): Promise<void> {
    if (this.#source.appliedSeq !== this.#snapshotSeq) await this.compact();
  }

  /** Rolls the log, snapshots, erases deleted and expired events, and drops covered segments. */
  async compact(): Promise<void> {
    const started = performance.now();
    const closedSeq = await this.#store.roll();
    const seq = this.#source.appliedSeq;
    const written = await writeSnapshot(this.#store.dataDir, seq, this.#source.records());
    this.#snapshotSeq = seq;
    const { retentionMs, clock = Date.now } = this.#options;
    const expiredBefore = retentionMs === undefined ? -Infinity : clock() - retentionMs;
    let dropped = 0;
    for (const segment of await this.#store.closedSegments()) {
      dropped += await compactSegment(
        this.#store.dataDir,
        segment,
        // Events after the snapshot stay: it does not cover them; the next compaction erases them.
        (event) => keepsEvent(this.#source, event, seq, expiredBefore),
      );
    }
    const older = (await listSnapshots(this.#store.dataDir)).filter((s) => s.seq < written.seq);
    const previous = await this.#keepErased(older[0]);
    for (const stale of older.slice(previous === undefined ? 0 : 1)) await removeSnapshot(stale);
    if (previous !== undefined) {
      const closed = await this.#store.closedSegments();
      for (const [i, segment] of closed.entries()) {
        const end = (closed[i + 1]?.first ?? seq + 1) - 1;
        if (end <= previous.seq) await removeSegment(this.#store.dataDir, segment);
      }
    }
    // Every customer deleted up to both bounds is gone from every file now, so in-memory
    // readers may forget their events (EventStore.erasedSeq).
    this.#store.noteErased(Math.min(seq, closedSeq));
    this.#log.info("compaction done", {
      snapshot_seq: seq,
      events_erased: dropped,
      ms: Math.round(performance.now() - started),
    });
  }

  /** Rewrites the previous snapshot with only live customers; drops it if damaged. */
  async #keepErased(previous: SnapshotInfo | undefined): Promise<SnapshotInfo | undefined> {
    if (previous === undefined) return undefined;
    const kept: string[] = [];
    try {
      await readSnapshot(previous, (record, data) => {
        if (this.#source.isLive(this.#source.idOf(record, data))) {
          kept.push(joinRecord(record, data));
        }
      });
    } catch (error) {
      if (!(error instanceof CorruptSnapshotError)) throw error;
      return undefined;
    }
    return await writeSnapshot(this.#store.dataDir, previous.seq, kept);
  }
}
