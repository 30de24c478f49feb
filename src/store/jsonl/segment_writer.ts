import type { StoredEvent } from "../event_store.ts";
import { writeAllNow } from "../../lib/fs_util.ts";
import { io } from "../../lib/io_error.ts";
import { joinAdjacent, LineArena } from "./line_arena.ts";
import { LOG_DIR } from "./data_dir_layout.ts";
import { commitText, UNSYNCED_MAX_BYTES } from "./segment_header.ts";
import { createSegment } from "./segments.ts";
import type { DurablePosition } from "./log_reader.ts";
import { StorageFullError, StoreFailedError, WriteFailedError } from "../store_errors.ts";
import { type CommitTrace, GroupSteps, timedBy } from "../commit_trace.ts";
import { batchLength, type Operation, traced, type Write } from "./write_queue.ts";

/** Options of the JSONL store's writer; the defaults are the durable ones. */
export interface SegmentWriterOptions {
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
  /** Told of every group's commit, with its write and fdatasync timed (tracing on). */
  trace?: CommitTrace;
}

/** What the writer tells its store. */
export interface WriterListener {
  /** Each write of a batch, in order, once the batch is durable. */
  durable(events: StoredEvent[]): void;
  /** The batch's writes are durable and answered. */
  batchDone(lastSeq: number): void;
  /** Every queued write was refused: the seqs handed out after `lastSeq` are free again. */
  refused(lastSeq: number): void;
}

/** Appends to the active segment with group commit: one write and one sync per batch. */
export class SegmentWriter {
  /** Fewer than the events written when writes shared a sync. */
  syncs = 0;
  readonly lines = new LineArena();
  #logDir: string;
  #listener: WriterListener;
  #active: Deno.FsFile | undefined;
  #activeFirst = 1;
  #activePath = "";
  /** The active segment's header length: a segment no longer holds no event. */
  #headerLength = 0;
  #durableLength = 0;
  #lastSeq = 0;
  #sync: (file: Deno.FsFile) => Promise<void>;
  #write: (file: Deno.FsFile, bytes: Uint8Array) => Promise<void>;
  #warn: (message: string, fields: Record<string, unknown>) => void;
  #onFatal: (error: unknown) => void;
  #segmentMaxBytes: number;
  readonly unsyncedMaxBytes: number;
  #queue: Operation[] = [];
  #writing: Promise<void> | null = null;
  #failure: unknown = null;
  #steps: GroupSteps | undefined;

  constructor(dataDir: string, listener: WriterListener, options: SegmentWriterOptions) {
    this.#logDir = `${dataDir}/${LOG_DIR}`;
    this.#listener = listener;
    this.#steps = options.trace && new GroupSteps(options.trace, "jsonl");
    this.#sync = timedBy(this.#steps, "log.fdatasync", options.sync ?? ((f) => f.syncData()));
    this.#write = timedBy(this.#steps, "log.write", options.write ?? writeAllNow);
    this.#warn = options.warn ?? (() => {});
    this.#onFatal = options.onFatal ?? (() => {});
    this.#segmentMaxBytes = options.segmentMaxBytes ?? 64 * 1024 * 1024;
    this.unsyncedMaxBytes = options.unsyncedMaxBytes ?? UNSYNCED_MAX_BYTES;
  }

  /** Null while every write succeeded; after a failed sync, why the writer stopped. */
  get failure(): unknown {
    return this.#failure;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  get position(): DurablePosition {
    return {
      lastSeq: this.#lastSeq,
      activeFirst: this.#activeFirst,
      durableLength: this.#durableLength,
      activePath: this.#activePath,
    };
  }

  /** Goes on in an existing segment, after its last durable byte. */
  async resume(path: string, first: number, headerLength: number, length: number, lastSeq: number) {
    this.#lastSeq = lastSeq;
    this.#active = await io("opening", path, () => Deno.open(path, { read: true, write: true }));
    this.#activeFirst = first;
    this.#activePath = path;
    this.#headerLength = headerLength;
    this.#durableLength = length;
    await io("reading", path, () => this.#active!.seek(length, Deno.SeekMode.Start));
  }

  /** Starts a new segment whose first event is `lastSeq + 1`. */
  async start(lastSeq: number): Promise<void> {
    this.#lastSeq = lastSeq;
    const segment = await createSegment(this.#logDir, lastSeq + 1, this.unsyncedMaxBytes);
    this.#active = segment.file;
    this.#activeFirst = lastSeq + 1;
    this.#activePath = segment.path;
    this.#headerLength = this.#durableLength = segment.headerLength;
  }

  enqueue(bytes: Uint8Array, events: StoredEvent[]): Promise<StoredEvent[]> {
    const token = this.#steps?.queued();
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: "write", bytes, events, token, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  /** Closes the active segment and starts a new one; resolves with the last seq now closed. */
  roll(): Promise<number> {
    if (this.#failure !== null) return Promise.reject(new StoreFailedError(this.#failure));
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind: "roll", resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  /** Waits for the queued writes, then closes the active segment. */
  async close(): Promise<void> {
    while (this.#writing !== null) await this.#writing;
    this.#active?.close();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && this.#failure === null) {
      const head = this.#queue[0];
      if (head.kind === "roll") {
        this.#queue.shift();
        await this.#rollNow().then(() => head.resolve(this.#activeFirst - 1), head.reject);
        continue;
      }
      const length = batchLength(this.#queue, this.unsyncedMaxBytes);
      const batch = this.#queue.splice(0, length) as Write[];
      await this.#commit(batch);
      if (this.#durableLength >= this.#segmentMaxBytes) {
        await this.#rollNow().catch((error) =>
          this.#warn("Could not start a new segment", { error: String(error) })
        );
      }
    }
    this.#writing = null;
  }

  async #commit(batch: Write[]): Promise<void> {
    this.#steps?.begin();
    const lastSeq = batch[batch.length - 1].events.at(-1)!.seq;
    const parts = batch.map((w) => w.bytes);
    parts.push(this.lines.add(commitText(lastSeq)));
    const buffer = joinAdjacent(parts);
    const path = this.#activePath;
    // Synced piece by piece: never more unsynced than the header says.
    const most = this.unsyncedMaxBytes;
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
    this.#lastSeq = lastSeq;
    for (const write of batch) {
      this.#listener.durable(write.events);
      write.resolve(write.events);
    }
    this.#steps?.told(batch.map((w) => traced(w)));
    this.#listener.batchDone(lastSeq);
  }

  async #syncOrStop(batch: Write[]): Promise<boolean> {
    try {
      await io("syncing", this.#activePath, () => this.#sync(this.#active!));
      this.syncs++;
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
    this.#steps?.told(batch.map((w) => traced(w, failure)));
    for (const op of queued) op.reject(failure);
    this.#listener.refused(this.#lastSeq);
  }

  async #rollNow(): Promise<void> {
    if (this.#durableLength <= this.#headerLength) return;
    this.#active!.close();
    this.#active = undefined;
    await this.start(this.#lastSeq);
  }
}
