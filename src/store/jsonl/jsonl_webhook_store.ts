import { syncDirectory, writeAll, writeAtomically } from "../../lib/fs_util.ts";
import { staleRemove, staleVersion, WebhookState } from "../webhook_state.ts";
import type { DeliveryAttempt, WebhookEndpoint, WebhookStore } from "../webhook_store.ts";
import { encodeLine } from "./checked_line.ts";
import { type Change, neededLines, readWebhookFile } from "./webhook_file.ts";
import { WEBHOOKS_FILE } from "./data_dir_layout.ts";

export interface JsonlWebhookOptions {
  /** Told when a torn last line is cut off. */
  warn?: (message: string, fields: Record<string, unknown>) => void;
  /** Rewrite the file once it holds this many lines more than its live records need. */
  compactAfterLines?: number;
  /** Checkpoints and attempts wait up to this long (100 ms) to share one sync; changes do not. */
  lazySyncMs?: number;
  /** Makes the file's appended lines durable (default: fdatasync). */
  sync?: (file: Deno.FsFile) => Promise<void>;
}

/** Webhook state in DATA_DIR/webhooks.jsonl: a checked line per change, synced, compacted. */
export class JsonlWebhookStore implements WebhookStore {
  #state = new WebhookState();
  #pending: {
    change: Change;
    urgent: boolean;
    done: () => void;
    failed: (error: unknown) => void;
  }[] = [];
  #flushing: Promise<void> | undefined;
  /** The changes being written and synced now (no longer pending, not yet applied). */
  #syncing: { change: Change }[] = [];
  #lines: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #lazyMs: number;
  readonly #sync: (file: Deno.FsFile) => Promise<void>;
  /** Set by close(): every pending change is written now, lazy or not. */
  #closing = false;

  private constructor(
    readonly dir: string,
    private file: Deno.FsFile,
    lines: number,
    private readonly compactAfter: number,
    private readonly warn?: (message: string, fields: Record<string, unknown>) => void,
    lazyMs = 100,
    sync: (file: Deno.FsFile) => Promise<void> = (file) => file.syncData(),
  ) {
    this.#lines = lines;
    this.#lazyMs = lazyMs;
    this.#sync = sync;
  }

  /** Opens (or creates) the webhooks file in `dir` and replays it. */
  static async open(dir: string, options: JsonlWebhookOptions = {}): Promise<JsonlWebhookStore> {
    const path = `${dir}/${WEBHOOKS_FILE}`;
    const { changes, validBytes, length } = await readWebhookFile(path, options.warn);
    const file = await Deno.open(path, { read: true, write: true, create: true });
    if (validBytes < length) {
      await file.truncate(validBytes);
      await file.syncData();
    }
    await file.seek(0, Deno.SeekMode.End);
    if (length === 0) await syncDirectory(dir);
    const store = new JsonlWebhookStore(
      dir,
      file,
      changes.length,
      options.compactAfterLines ?? 5000,
      options.warn,
      options.lazySyncMs,
      options.sync,
    );
    for (const change of changes) store.#apply(change);
    return store;
  }

  list(): WebhookEndpoint[] {
    return this.#state.list();
  }

  get(id: string): WebhookEndpoint | undefined {
    return this.#state.get(id);
  }

  put(endpoint: WebhookEndpoint): Promise<void> {
    const conflict = staleVersion(endpoint, this.#newestVersion(endpoint.id));
    if (conflict !== undefined) return Promise.reject(conflict);
    return this.#write({ op: "put", endpoint }, true);
  }

  restore(endpoint: WebhookEndpoint): Promise<void> {
    return this.#write({ op: "put", endpoint }, true);
  }

  remove(id: string, version?: number): Promise<void> {
    const conflict = staleRemove(id, version, this.#newestVersion(id));
    if (conflict !== undefined) return Promise.reject(conflict);
    return this.#write({ op: "remove", id }, true);
  }

  /** An endpoint's newest version, a put or remove still waiting for its sync included. */
  #newestVersion(id: string): number | undefined {
    let version = this.#state.get(id)?.version;
    for (const { change } of [...this.#syncing, ...this.#pending]) {
      if (change.op === "put" && change.endpoint.id === id) version = change.endpoint.version;
      if (change.op === "remove" && change.id === id) version = undefined;
    }
    return version;
  }

  checkpoint(id: string, lastSeq: number): Promise<void> {
    return this.#write({ op: "checkpoint", id, last_seq: lastSeq }, false);
  }

  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void> {
    return this.#write({ op: "attempt", id, attempt }, false);
  }

  attempts(id: string): DeliveryAttempt[] {
    return this.#state.attempts(id);
  }

  /** Only this process writes the file: nothing to catch up on. */
  refresh(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#closing = true;
    if (this.#pending.length > 0) this.#flushing ??= this.#flush();
    while (this.#flushing !== undefined) await this.#flushing;
    this.file.close();
  }

  #apply(change: Change): void {
    switch (change.op) {
      case "put":
        this.#state.set(change.endpoint);
        break;
      case "remove":
        this.#state.remove(change.id);
        break;
      case "checkpoint":
        this.#state.checkpoint(change.id, change.last_seq);
        break;
      case "attempt":
        this.#state.recordAttempt(change.id, change.attempt);
    }
  }

  /** Applies a change once its line is durable; changes waiting together share one fdatasync. */
  #write(change: Change, urgent: boolean): Promise<void> {
    const durable = new Promise<void>((done, failed) =>
      this.#pending.push({ change, urgent: urgent || this.#lazyMs === 0, done, failed })
    );
    if (urgent || this.#lazyMs === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#flushing ??= this.#flush();
    } else if (this.#flushing === undefined) this.#arm();
    return durable;
  }

  /** Flushes the lazy changes in #lazyMs (one sync per interval, however many arrive). */
  #arm(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flushing ??= this.#flush();
    }, this.#lazyMs);
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#syncing = this.#pending.splice(0);
      const needed = neededLines(batch.map((item) => item.change));
      try {
        const lines = batch.filter(({ change }) => needed.has(change)).map((item) =>
          encodeLine(item.change)
        );
        await writeAll(this.file, joinLines(lines));
        await this.#sync(this.file);
        this.#lines += lines.length;
        // Applied in order before the next batch, so a compaction sees every durable change.
        for (const item of batch) this.#apply(item.change), item.done();
      } catch (error) {
        for (const item of batch) item.failed(error);
      }
      this.#syncing = [];
      if (this.#lines > this.compactAfter + this.#state.size) {
        // A failed rewrite leaves the old file whole; appending to it goes on.
        await this.#compact().catch((error) =>
          this.warn?.("Rewriting the webhooks file failed", { error: String(error) })
        );
      }
      // Lazy changes that came during this sync wait for the next interval, not for this loop.
      if (!this.#closing && !this.#pending.some((item) => item.urgent)) break;
    }
    this.#flushing = undefined;
    if (this.#pending.length > 0) this.#arm();
  }

  /** Rewrites the file with only what it must keep: temp file, fsync, rename, fsync of the dir. */
  async #compact(): Promise<void> {
    const lines: Uint8Array[] = [];
    for (const endpoint of this.#state.list()) {
      lines.push(encodeLine({ op: "put", endpoint }));
      for (const attempt of this.#state.attempts(endpoint.id).reverse()) {
        lines.push(encodeLine({ op: "attempt", id: endpoint.id, attempt }));
      }
    }
    // One write of the whole file, not an awaited syscall per line.
    const joined = joinLines(lines);
    await writeAtomically(this.dir, WEBHOOKS_FILE, (file) => writeAll(file, joined));
    this.file.close();
    this.file = await Deno.open(`${this.dir}/${WEBHOOKS_FILE}`, { read: true, write: true });
    await this.file.seek(0, Deno.SeekMode.End);
    this.#lines = lines.length;
  }
}

function joinLines(lines: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(lines.reduce((sum, line) => sum + line.length, 0));
  let at = 0;
  for (const line of lines) joined.set(line, at), at += line.length;
  return joined;
}
