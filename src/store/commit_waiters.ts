interface Waiter {
  afterSeq: number;
  resolve(lastSeq: number): void;
  reject(error: unknown): void;
}

/** The callers of EventStore.waitForCommit, woken by a store each time its lastSeq moves on. */
export class CommitWaiters {
  #waiters = new Set<Waiter>();

  /** Resolves once `lastSeq()` is past afterSeq; rejects with the signal's reason on abort. */
  wait(afterSeq: number, lastSeq: number, signal?: AbortSignal): Promise<number> {
    if (lastSeq > afterSeq) return Promise.resolve(lastSeq);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        afterSeq,
        resolve: (seq) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(seq);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Wakes every waiter that the new lastSeq satisfies. */
  notify(lastSeq: number): void {
    if (this.#waiters.size === 0) return;
    for (const waiter of this.#waiters) {
      if (lastSeq > waiter.afterSeq) {
        this.#waiters.delete(waiter);
        waiter.resolve(lastSeq);
      }
    }
  }

  /** Rejects every waiter (the store closed: no commit will come). */
  rejectAll(error: unknown): void {
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
  }
}
