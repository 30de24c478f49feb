import type { CustomerEvent } from "../domain/events.ts";
import { CorruptRecordError, decodeEvent, encodeEvent } from "./event_codec.ts";
import type { EventMeta, EventStore, StoredEvent } from "./event_store.ts";
import { StoreFailedError, StoreLockedError } from "./store_errors.ts";

/** Options of the JSONL store; the defaults are the durable ones. */
export interface JsonlStoreOptions {
  /** Makes written bytes durable; default fdatasync. Tests inject a counting or slow one. */
  sync?: (file: Deno.FsFile) => Promise<void>;
  /** Receives warnings such as a cut-off torn tail. */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}

/** Counters that show how the writer batches work. */
export interface StoreStats {
  /** Durable events appended since open. */
  events: number;
  /** Syncs done since open: fewer than events when writes shared a sync. */
  syncs: number;
}

interface PendingWrite {
  bytes: Uint8Array;
  events: StoredEvent[];
  resolve(events: StoredEvent[]): void;
  reject(error: unknown): void;
}

/** The file names inside DATA_DIR. */
export const LOG_FILE = "events.jsonl";
export const LOCK_FILE = "customer-api.lock";

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * The event log as one JSONL file with group commit: one writer loop drains the queue,
 * writes one buffer, syncs once and then answers every append in the batch.
 */
export class JsonlEventStore implements EventStore {
  readonly stats: StoreStats = { events: 0, syncs: 0 };
  #file: Deno.FsFile;
  #lock: Deno.FsFile;
  #path: string;
  #sync: (file: Deno.FsFile) => Promise<void>;
  #warn: (message: string, fields: Record<string, unknown>) => void;
  #replayed = false;
  #durableLength = 0;
  #lastSeq = 0;
  #nextSeq = 1;
  #queue: PendingWrite[] = [];
  #writing: Promise<void> | null = null;
  #failure: unknown = null;

  private constructor(
    file: Deno.FsFile,
    lock: Deno.FsFile,
    path: string,
    options: JsonlStoreOptions,
  ) {
    this.#file = file;
    this.#lock = lock;
    this.#path = path;
    this.#sync = options.sync ?? ((f) => f.syncData());
    this.#warn = options.warn ?? (() => {});
  }

  /** Opens (creating if needed) the log in dir, after taking the directory's exclusive lock. */
  static async open(dir: string, options: JsonlStoreOptions = {}): Promise<JsonlEventStore> {
    await Deno.mkdir(dir, { recursive: true });
    const lock = await takeLock(`${dir}/${LOCK_FILE}`);
    const path = `${dir}/${LOG_FILE}`;
    let created = false;
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true, write: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      file = await Deno.open(path, { read: true, write: true, createNew: true });
      created = true;
    }
    if (created) await syncDirectory(dir);
    return new JsonlEventStore(file, lock, path, options);
  }

  /** The sequence number of the last durable event. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Reads, verifies and hands over every event; cuts off a torn last record with a warning. */
  async replay(onEvent: (event: StoredEvent) => void): Promise<number> {
    if (this.#replayed) throw new Error("The log was already replayed");
    let offset = 0;
    let line = 1;
    let carry = new Uint8Array(0);
    let bad: { offset: number; line: number; reason: string } | null = null;
    await this.#file.seek(0, Deno.SeekMode.Start);
    const chunk = new Uint8Array(CHUNK);
    while (true) {
      const read = await this.#file.read(chunk);
      if (read === null) break;
      const data = concat(carry, chunk.subarray(0, read));
      let start = 0;
      for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
        const record = data.subarray(start, end);
        const problem: string | null = bad === null
          ? this.#accept(record, onEvent)
          : this.#isValid(record);
        if (bad !== null && problem === null) {
          throw new CorruptLogError(this.#path, bad.line, bad.offset, bad.reason);
        }
        if (bad === null && problem !== null) bad = { offset, line, reason: problem };
        offset += end - start + 1;
        line++;
        start = end + 1;
      }
      carry = data.slice(start);
    }
    if (bad === null && carry.length > 0) bad = { offset, line, reason: "Record has no newline" };
    if (bad !== null) {
      const total = (await this.#file.stat()).size;
      this.#warn("Cut off a torn record at the end of the log", {
        file: this.#path,
        line: bad.line,
        offset: bad.offset,
        bytes_dropped: total - bad.offset,
        reason: bad.reason,
      });
      await this.#file.truncate(bad.offset);
      await this.#file.sync();
      offset = bad.offset;
    }
    this.#durableLength = offset;
    this.#nextSeq = this.#lastSeq + 1;
    await this.#file.seek(offset, Deno.SeekMode.Start);
    this.#replayed = true;
    return this.#lastSeq;
  }

  /** Queues events for the next group commit and resolves once they are durable. */
  append(events: readonly (CustomerEvent & EventMeta)[]): Promise<StoredEvent[]> {
    if (!this.#replayed) return Promise.reject(new Error("Replay the log before appending"));
    if (this.#failure !== null) return Promise.reject(new StoreFailedError(this.#failure));
    const stored = events.map((event) => ({ ...event, seq: this.#nextSeq++ }));
    const parts = stored.map(encodeEvent);
    const bytes = parts.length === 1 ? parts[0] : concat(...parts);
    return new Promise((resolve, reject) => {
      this.#queue.push({ bytes, events: stored, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  /** Waits for queued appends, then closes the log and releases the lock. */
  async close(): Promise<void> {
    while (this.#writing !== null) await this.#writing;
    this.#file.close();
    this.#lock.close();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      const buffer = batch.length === 1 ? batch[0].bytes : concat(...batch.map((w) => w.bytes));
      try {
        await writeAll(this.#file, buffer);
        await this.#sync(this.#file);
        this.stats.syncs++;
      } catch (error) {
        await this.#fail(batch, error);
        break;
      }
      this.#durableLength += buffer.length;
      for (const write of batch) {
        this.#lastSeq = write.events[write.events.length - 1].seq;
        this.stats.events += write.events.length;
        write.resolve(write.events);
      }
    }
    this.#writing = null;
  }

  /** After a failed write or sync nothing more is accepted: the bytes on disk are unknown. */
  async #fail(batch: PendingWrite[], error: unknown): Promise<void> {
    this.#failure = error;
    // Rejected events must not come back on restart, so cut the log back to what was acknowledged.
    try {
      await this.#file.truncate(this.#durableLength);
      await this.#file.sync();
    } catch (cutError) {
      this.#warn("Could not cut unacknowledged records off the log", {
        file: this.#path,
        offset: this.#durableLength,
        error: String(cutError),
      });
    }
    const failed = new StoreFailedError(error);
    for (const write of [...batch, ...this.#queue]) write.reject(failed);
    this.#queue = [];
    this.#nextSeq = this.#lastSeq + 1;
  }

  #accept(record: Uint8Array, onEvent: (event: StoredEvent) => void): string | null {
    let event: StoredEvent;
    try {
      event = decodeEvent(record);
    } catch (error) {
      if (error instanceof CorruptRecordError) return error.message;
      throw error;
    }
    if (event.seq !== this.#lastSeq + 1) return `Sequence ${event.seq} follows ${this.#lastSeq}`;
    this.#lastSeq = event.seq;
    onEvent(event);
    return null;
  }

  #isValid(record: Uint8Array): string | null {
    try {
      decodeEvent(record);
      return null;
    } catch {
      return "invalid";
    }
  }
}

/** The log is damaged before its last record; starting would silently lose data. */
export class CorruptLogError extends Error {
  constructor(file: string, line: number, offset: number, reason: string) {
    super(
      `The event log "${file}" is damaged at line ${line} (byte offset ${offset}): ${reason}. ` +
        "Valid records follow it, so it is not a torn write; restore from a backup.",
    );
    this.name = "CorruptLogError";
  }
}

async function takeLock(path: string): Promise<Deno.FsFile> {
  const lock = await Deno.open(path, { read: true, write: true, create: true });
  if (!(await lock.tryLock(true))) {
    lock.close();
    const holder = (await Deno.readTextFile(path)).trim() || "unknown";
    throw new StoreLockedError(path, holder);
  }
  await lock.truncate(0);
  await lock.write(new TextEncoder().encode(`${Deno.pid}\n`));
  return lock;
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** Makes a new directory entry durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await Deno.open(dir);
  try {
    await handle.sync();
  } finally {
    handle.close();
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
