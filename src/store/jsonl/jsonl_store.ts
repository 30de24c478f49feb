import { dataText } from "./event_codec.ts";
import { withSeq } from "../stored_event.ts";
import { eventHeadRoom, writeEventHead } from "./event_head.ts";
import { joinAdjacent } from "./line_arena.ts";
import type {
  AppendOptions,
  EventStore,
  NewEvent,
  ReplayedEvent,
  StoredEvent,
} from "../event_store.ts";
import { replaySegments } from "./replay.ts";
import { listSegments, type Segment } from "./segments.ts";
import { olderSnapshotSeq } from "./snapshot_file.ts";
import { LOCK_FILE, LOG_DIR } from "./data_dir_layout.ts";
import { takeLock } from "./lock_file.ts";
import { io } from "../../lib/io_error.ts";
import { LogReader } from "./log_reader.ts";
import { CommitWaiters } from "../commit_waiters.ts";
import { StreamVersions, type VersionSource } from "../stream_versions.ts";
import { StoreClosedError, StoreFailedError } from "../store_errors.ts";
import { SegmentWriter, type SegmentWriterOptions } from "./segment_writer.ts";

/** Options of the JSONL store; the defaults are the durable ones. */
export type JsonlStoreOptions = SegmentWriterOptions;

export interface StoreStats {
  events: number;
  /** Fewer than events when writes shared a sync. */
  syncs: number;
}

/** The event log as JSONL segments with group commit: one write and one sync per batch. */
export class JsonlEventStore implements EventStore {
  readonly dataDir: string;
  #lock: Deno.FsFile;
  #writer: SegmentWriter;
  #warn: (message: string, fields: Record<string, unknown>) => void;
  #events = 0;
  #replayed = false;
  #closed = false;
  #versions = new StreamVersions();
  #waiters = new CommitWaiters();
  #reader: LogReader;
  #erasedSeq = 0;
  #nextSeq = 1;

  private constructor(dataDir: string, lock: Deno.FsFile, options: JsonlStoreOptions) {
    this.dataDir = dataDir;
    this.#lock = lock;
    this.#warn = options.warn ?? (() => {});
    this.#reader = new LogReader(dataDir);
    this.#writer = new SegmentWriter(dataDir, {
      durable: (events) => {
        for (const event of events) this.#versions.noteDurable(event.id, event.version, event.seq);
        this.#events += events.length;
      },
      batchDone: (lastSeq) => this.#waiters.notify(lastSeq),
      refused: (lastSeq) => {
        this.#nextSeq = lastSeq + 1;
        this.#versions.dropPending();
      },
    }, options);
  }

  /** Opens (creating if needed) the log in dataDir, after taking the directory's exclusive lock. */
  static async open(dataDir: string, options: JsonlStoreOptions = {}): Promise<JsonlEventStore> {
    const logDir = `${dataDir}/${LOG_DIR}`;
    await io("opening", logDir, () => Deno.mkdir(logDir, { recursive: true }));
    const lock = await takeLock(`${dataDir}/${LOCK_FILE}`);
    return new JsonlEventStore(dataDir, lock, options);
  }

  get stats(): StoreStats {
    return { events: this.#events, syncs: this.#writer.syncs };
  }

  get lastSeq(): number {
    return this.#writer.lastSeq;
  }

  /** The erasure horizon: 0 after opening, whatever earlier compactions erased. */
  get erasedSeq(): number {
    return this.#erasedSeq;
  }

  /** A compaction erased every customer deleted up to `seq` from the files. */
  noteErased(seq: number): void {
    this.#erasedSeq = Math.max(this.#erasedSeq, seq);
  }

  /** Verifies every segment, hands over the events after `afterSeq`, and cuts off a torn tail. */
  async replay(onEvent: (event: ReplayedEvent) => void, afterSeq = 0): Promise<number> {
    if (this.#replayed) throw new Error("The log was already replayed");
    const segments = await listSegments(this.dataDir);
    const versions = this.#versions;
    // With a version source the replayed versions are its to keep; without one, the store's.
    const deliver = versions.hasSource ? onEvent : (event: ReplayedEvent) => {
      versions.noteReplayed(event.id, event.version, event.seq);
      onEvent(event);
    };
    const droppableSeq = await olderSnapshotSeq(this.dataDir, afterSeq);
    const result = await replaySegments(segments, { afterSeq, droppableSeq }, deliver, this.#warn);
    const lastSeq = Math.max(result.lastSeq, afterSeq);
    this.#nextSeq = lastSeq + 1;
    const last = segments.at(-1);
    // Appends go on in the last segment only if its header states this writer's bound.
    const sameBound = result.unsyncedMaxBytes === this.#writer.unsyncedMaxBytes;
    if (last === undefined || last.compacted || result.lastSeq < afterSeq || !sameBound) {
      if (last !== undefined && !last.compacted && last.first === this.#nextSeq) {
        // A segment without events: its name is the new segment's.
        await io("removing", last.path, () => Deno.remove(last.path));
      }
      await this.#writer.start(lastSeq);
    } else {
      await this.#writer.resume(
        last.path,
        last.first,
        result.headerLength,
        result.activeLength,
        lastSeq,
      );
    }
    this.#replayed = true;
    return result.delivered;
  }

  /** Takes stream versions from the replayed state, so the store keeps no map of every customer. */
  useVersionSource(source: VersionSource): void {
    this.#versions.use(source);
  }

  append(events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    if (!this.#replayed) return Promise.reject(new Error("Replay the log before appending"));
    const failure = this.#writer.failure;
    if (failure !== null) return Promise.reject(new StoreFailedError(failure));
    try {
      this.#versions.check(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const stored: StoredEvent[] = [];
    const lines: Uint8Array[] = [];
    for (const event of events) {
      const next = withSeq(event, this.#nextSeq++);
      stored.push(next);
      // The envelope is written as bytes, so no string is made for the line (see event_head.ts).
      const data = dataText(next, event.dataJson);
      lines.push(this.#writer.lines.addWritten(eventHeadRoom(next), writeEventHead, next, data));
      this.#versions.notePending(next.id, next.version, next.seq);
    }
    return this.#writer.enqueue(joinAdjacent(lines), stored);
  }

  readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    return this.#reader.read(this.#writer.position, afterSeq, limit);
  }

  waitForCommit(afterSeq: number, signal?: AbortSignal): Promise<number> {
    return this.#waiters.wait(afterSeq, this.lastSeq, signal);
  }

  /** Closes the active segment and starts a new one; resolves with the last seq now closed. */
  roll(): Promise<number> {
    return this.#writer.roll();
  }

  async closedSegments(): Promise<Segment[]> {
    const activeFirst = this.#writer.position.activeFirst;
    return (await listSegments(this.dataDir)).filter((s) => s.first < activeFirst);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#writer.close();
    this.#waiters.rejectAll(new StoreClosedError());
    this.#lock.close();
  }
}
