import { dataText } from "./event_codec.ts";
import { eventHeadRoom, writeEventHead } from "./event_head.ts";
import { joinAdjacent, LineArena } from "./line_arena.ts";
import type {
  AppendOptions,
  EventStore,
  NewEvent,
  ReplayedEvent,
  StoredEvent,
} from "../event_store.ts";
import { syncDirectory, writeAll, writeAllNow } from "../../lib/fs_util.ts";
import { replaySegments } from "./replay.ts";
import { listSegments, type Segment } from "./segments.ts";
import { LOCK_FILE, LOG_DIR, segmentName } from "./data_dir_layout.ts";
import { takeLock } from "./lock_file.ts";
import { commitText, encodeSegmentHeader, UNSYNCED_MAX_BYTES } from "./segment_header.ts";
import { io } from "../../lib/io_error.ts";
import { LogReader } from "./log_reader.ts";
import { CommitWaiters } from "../commit_waiters.ts";
import { StreamVersions, type VersionSource } from "../stream_versions.ts";
import {
  StorageFullError,
  StoreClosedError,
  StoreFailedError,
  WriteFailedError,
} from "../store_errors.ts";

/** Options of the JSONL store; the defaults are the durable ones. */
export interface JsonlStoreOptions {
  /** Makes written bytes durable; default fdatasync. */
  sync?: (file: Deno.FsFile) => Promise<void>;
  /** Writes bytes; tests inject one that fails like a full disk. */
  write?: (file: Deno.FsFile, bytes: Uint8Array) => Promise<void>;
  warn?: (message: string, fields: Record<string, unknown>) => void;
  /** Called once when a sync failed: the process must stop (the state of the file is unknown). */
  onFatal?: (error: unknown) => void;
  segmentMaxBytes?: number;
  /** The most bytes written but not yet synced (recorded in each new segment's header). */
  unsyncedMaxBytes?: number;
}

export interface StoreStats {
  events: number;
  /** Fewer than events when writes shared a sync. */
  syncs: number;
}

type Operation =
  | {
    kind: "write";
    bytes: Uint8Array;
    events: StoredEvent[];
    resolve(events: StoredEvent[]): void;
    reject(error: unknown): void;
  }
  | { kind: "roll"; resolve(closedSeq: number): void; reject(error: unknown): void };

type Write = Extract<Operation, { kind: "write" }>;

/** The event log as JSONL segments with group commit: one write and one sync per batch. */
export class JsonlEventStore implements EventStore {
  readonly stats: StoreStats = { events: 0, syncs: 0 };
  readonly dataDir: string;
  #logDir: string;
  #lock: Deno.FsFile;
  #active: Deno.FsFile | undefined;
  #activeFirst = 1;
  #activePath = "";
  /** The active segment's header length: a segment no longer holds no event. */
  #headerLength = 0;
  #sync: (file: Deno.FsFile) => Promise<void>;
  #write: (file: Deno.FsFile, bytes: Uint8Array) => Promise<void>;
  #warn: (message: string, fields: Record<string, unknown>) => void;
  #onFatal: (error: unknown) => void;
  #segmentMaxBytes: number;
  #unsyncedMaxBytes: number;
  #replayed = false;
  #closed = false;
  #versions = new StreamVersions();
  #waiters = new CommitWaiters();
  #reader: LogReader;
  #lines = new LineArena();
  #durableLength = 0;
  #lastSeq = 0;
  #erasedSeq = 0;
  #nextSeq = 1;
  #queue: Operation[] = [];
  #writing: Promise<void> | null = null;
  #failure: unknown = null;

  private constructor(dataDir: string, lock: Deno.FsFile, options: JsonlStoreOptions) {
    this.dataDir = dataDir;
    this.#logDir = `${dataDir}/${LOG_DIR}`;
    this.#lock = lock;
    this.#sync = options.sync ?? ((f) => f.syncData());
    this.#write = options.write ?? writeAllNow;
    this.#warn = options.warn ?? (() => {});
    this.#onFatal = options.onFatal ?? (() => {});
    this.#segmentMaxBytes = options.segmentMaxBytes ?? 64 * 1024 * 1024;
    this.#unsyncedMaxBytes = options.unsyncedMaxBytes ?? UNSYNCED_MAX_BYTES;
    this.#reader = new LogReader(dataDir);
  }

  /** Opens (creating if needed) the log in dataDir, after taking the directory's exclusive lock. */
  static async open(dataDir: string, options: JsonlStoreOptions = {}): Promise<JsonlEventStore> {
    const logDir = `${dataDir}/${LOG_DIR}`;
    await io("opening", logDir, () => Deno.mkdir(logDir, { recursive: true }));
    const lock = await takeLock(`${dataDir}/${LOCK_FILE}`);
    return new JsonlEventStore(dataDir, lock, options);
  }

  get lastSeq(): number {
    return this.#lastSeq;
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
    const result = await replaySegments(segments, afterSeq, deliver, this.#warn);
    this.#lastSeq = Math.max(result.lastSeq, afterSeq);
    this.#nextSeq = this.#lastSeq + 1;
    const last = segments.at(-1);
    // Appends go on in the last segment only if its header states this writer's bound.
    const sameBound = result.unsyncedMaxBytes === this.#unsyncedMaxBytes;
    if (last === undefined || last.compacted || result.lastSeq < afterSeq || !sameBound) {
      if (last !== undefined && !last.compacted && last.first === this.#nextSeq) {
        // A segment without events: its name is the new segment's.
        await io("removing", last.path, () => Deno.remove(last.path));
      }
      await this.#startSegment(this.#nextSeq);
    } else {
      this.#active = await io(
        "opening",
        last.path,
        () => Deno.open(last.path, { read: true, write: true }),
      );
      this.#activeFirst = last.first;
      this.#activePath = last.path;
      this.#headerLength = result.headerLength;
      this.#durableLength = result.activeLength;
      await io(
        "reading",
        last.path,
        () => this.#active!.seek(this.#durableLength, Deno.SeekMode.Start),
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
    if (this.#failure !== null) return Promise.reject(new StoreFailedError(this.#failure));
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
      lines.push(this.#lines.addWritten(eventHeadRoom(next), writeEventHead, next, data));
      this.#versions.notePending(next.id, next.version, next.seq);
    }
    const bytes = joinAdjacent(lines);
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: "write", bytes, events: stored, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    const at = {
      lastSeq: this.#lastSeq,
      activeFirst: this.#activeFirst,
      durableLength: this.#durableLength,
      activePath: this.#activePath,
    };
    return this.#reader.read(at, afterSeq, limit);
  }

  waitForCommit(afterSeq: number, signal?: AbortSignal): Promise<number> {
    return this.#waiters.wait(afterSeq, this.#lastSeq, signal);
  }

  /** Closes the active segment and starts a new one; resolves with the last seq now closed. */
  roll(): Promise<number> {
    if (this.#failure !== null) return Promise.reject(new StoreFailedError(this.#failure));
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: "roll", resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  async closedSegments(): Promise<Segment[]> {
    return (await listSegments(this.dataDir)).filter((s) => s.first < this.#activeFirst);
  }

  async close(): Promise<void> {
    this.#closed = true;
    while (this.#writing !== null) await this.#writing;
    this.#waiters.rejectAll(new StoreClosedError());
    this.#active?.close();
    this.#lock.close();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && this.#failure === null) {
      const head = this.#queue[0];
      if (head.kind === "roll") {
        this.#queue.shift();
        await this.#rollNow().then(() => head.resolve(this.#activeFirst - 1), head.reject);
        continue;
      }
      const batch = this.#queue.splice(0, this.#batchLength()) as Write[];
      await this.#commit(batch);
      if (this.#durableLength >= this.#segmentMaxBytes) {
        await this.#rollNow().catch((error) =>
          this.#warn("Could not start a new segment", { error: String(error) })
        );
      }
    }
    this.#writing = null;
  }

  /** The writes of the next batch: up to a roll, and at most unsyncedMaxBytes (one at least). */
  #batchLength(): number {
    let bytes = 0;
    for (const [i, op] of this.#queue.entries()) {
      if (op.kind === "roll") return i;
      bytes += op.bytes.length;
      if (bytes > this.#unsyncedMaxBytes && i > 0) return i;
    }
    return this.#queue.length;
  }

  async #commit(batch: Write[]): Promise<void> {
    const lastSeq = batch[batch.length - 1].events.at(-1)!.seq;
    const parts = batch.map((w) => w.bytes);
    parts.push(this.#lines.add(commitText(lastSeq)));
    const buffer = joinAdjacent(parts);
    const path = this.#activePath;
    // Synced piece by piece: never more unsynced than the header says.
    const most = this.#unsyncedMaxBytes;
    for (let at = 0; at < buffer.length; at += most) {
      const piece = buffer.subarray(at, at + most);
      try {
        await io("writing", path, () => this.#write(this.#active!, piece));
      } catch (error) {
        await this.#rollBack(batch, error);
        return;
      }
      if (!(await this.#syncOrStop(batch))) return;
    }
    this.#durableLength += buffer.length;
    for (const write of batch) {
      for (const event of write.events) {
        this.#versions.noteDurable(event.id, event.version, event.seq);
      }
      this.#lastSeq = write.events[write.events.length - 1].seq;
      this.stats.events += write.events.length;
      write.resolve(write.events);
    }
    this.#waiters.notify(this.#lastSeq);
  }

  async #syncOrStop(batch: Write[]): Promise<boolean> {
    try {
      await io("syncing", this.#activePath, () => this.#sync(this.#active!));
      this.stats.syncs++;
      return true;
    } catch (error) {
      // Never retry a failed fsync: the kernel may have dropped the dirty pages ("fsyncgate").
      this.#failure = error;
      await this.#active!.truncate(this.#durableLength).catch(() => {});
      this.#rejectAll(batch, new StoreFailedError(error));
      this.#onFatal(error);
      return false;
    }
  }

  /** A failed write (a full disk, say): cut the file back to its last good length and go on. */
  async #rollBack(batch: Write[], error: unknown): Promise<void> {
    const path = this.#activePath;
    try {
      await io("truncating", path, () => this.#active!.truncate(this.#durableLength));
      await io("writing", path, () => this.#active!.seek(this.#durableLength, Deno.SeekMode.Start));
      await io("syncing", path, () => this.#sync(this.#active!));
    } catch (cutError) {
      this.#failure = cutError;
      this.#rejectAll(batch, new StoreFailedError(error));
      this.#onFatal(cutError);
      return;
    }
    const full = (error as { code?: string }).code === "ENOSPC";
    this.#rejectAll(batch, full ? new StorageFullError(error) : new WriteFailedError(error));
  }

  #rejectAll(batch: Write[], failure: Error): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const write of batch) write.reject(failure);
    for (const op of queued) op.reject(failure);
    this.#nextSeq = this.#lastSeq + 1;
    this.#versions.dropPending();
  }

  async #rollNow(): Promise<void> {
    if (this.#durableLength <= this.#headerLength) return;
    this.#active!.close();
    this.#active = undefined;
    await this.#startSegment(this.#lastSeq + 1);
  }

  async #startSegment(first: number): Promise<void> {
    const path = `${this.#logDir}/${segmentName(first)}`;
    const header = encodeSegmentHeader(this.#unsyncedMaxBytes);
    this.#active = await io(
      "opening",
      path,
      () => Deno.open(path, { read: true, write: true, createNew: true }),
    );
    this.#activeFirst = first;
    this.#activePath = path;
    await io("writing", path, () => writeAll(this.#active!, header));
    // Not the injected sync: that one is the group commit's, which tests count and gate.
    await io("syncing", path, () => this.#active!.syncData());
    this.#headerLength = this.#durableLength = header.length;
    await syncDirectory(this.#logDir);
  }
}

/** The stored event of a new one, spelled out: a rest and spread copy it twice. */
function withSeq(event: NewEvent, seq: number): StoredEvent {
  const stored = {
    type: event.type,
    id: event.id,
    version: event.version,
    time: event.time,
    data: event.data,
    actor: event.actor,
    request_id: event.request_id,
    seq,
  } as StoredEvent;
  if (event.idempotency_key !== undefined) stored.idempotency_key = event.idempotency_key;
  if (event.request_hash !== undefined) stored.request_hash = event.request_hash;
  return stored;
}
