/**
 * Writes that may wait a little to share a round trip (webhook checkpoints and attempts): they are
 * written together after `lazyMs`, or at once on flush(), one batch at a time.
 */
export class LazyWrites<W> {
  #waiting: { write: W; written: PromiseWithResolvers<void> }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  /** Settles once the batch being written is written or failed. */
  #batch: Promise<void> | undefined;
  #lazyMs: number;
  #writeBatch: (batch: W[]) => Promise<void>;

  constructor(lazyMs: number, writeBatch: (batch: W[]) => Promise<void>) {
    this.#lazyMs = lazyMs;
    this.#writeBatch = writeBatch;
  }

  /** True while a batch is being written. */
  get busy(): boolean {
    return this.#flushing !== undefined;
  }

  /** Queues a write; resolves once its batch is written, rejects with the batch's error. */
  add(write: W): Promise<void> {
    const written = Promise.withResolvers<void>();
    this.#waiting.push({ write, written });
    if (this.#lazyMs === 0) this.#start();
    else {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#start();
      }, this.#lazyMs);
    }
    return written.promise;
  }

  /**
   * Writes what waits now; resolves once it and the batch under way are written (or failed).
   * Writes added meanwhile do not hold it up: under steady traffic the queue is never empty.
   */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const last = this.#waiting.at(-1)?.written.promise.catch(() => {}) ?? this.#batch;
    this.#start();
    await last;
  }

  /**
   * Starts writing unless a batch is under way (it takes what waits) or nothing waits: a flush
   * started with nothing would end at once and stay recorded, and no later write would start one.
   */
  #start(): void {
    if (this.#flushing !== undefined || this.#waiting.length === 0) return;
    // Deferred, so its first query runs with #flushing set.
    this.#flushing = Promise.resolve().then(() => this.#drain()).finally(() => {
      this.#flushing = undefined;
      // Added while the last batch was finishing, after the loop looked.
      if (this.#waiting.length > 0) this.#start();
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0);
      this.#batch = this.#writeBatch(batch.map((item) => item.write)).then(
        () => batch.forEach((item) => item.written.resolve()),
        (error) => batch.forEach((item) => item.written.reject(error)),
      );
      await this.#batch;
    }
  }
}
