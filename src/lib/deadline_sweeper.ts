/** One watched deadline: `expired` turns true once it passed and its callback ran. */
export interface SweptDeadline {
  at: number;
  expired: boolean;
  onExpiry: () => void;
}

/** Timeouts for many short operations on one timer: a sweep every `sweepMs` runs expired ones. */
export class DeadlineSweeper {
  #pending = new Set<SweptDeadline>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #sweepMs: number;
  #clock: () => number;

  constructor(sweepMs: number, clock: () => number = () => performance.now()) {
    this.#sweepMs = sweepMs;
    this.#clock = clock;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** A deadline `ms` from now; `onExpiry` runs once unless it is removed before. */
  add(ms: number, onExpiry: () => void): SweptDeadline {
    const deadline = { at: this.#clock() + ms, expired: false, onExpiry };
    this.#pending.add(deadline);
    this.#timer ??= setInterval(() => this.#sweep(), this.#sweepMs);
    return deadline;
  }

  /** Forgets a deadline (its operation ended in time, or ended anyway). */
  remove(deadline: SweptDeadline): void {
    this.#pending.delete(deadline);
  }

  #sweep(): void {
    const now = this.#clock();
    for (const deadline of this.#pending) {
      if (deadline.at > now) continue;
      this.#pending.delete(deadline);
      deadline.expired = true;
      deadline.onExpiry();
    }
    if (this.#pending.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
