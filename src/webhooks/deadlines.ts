/** One pending deadline: `expired` turns true when it passed (and its callback ran). */
export interface Deadline {
  at: number;
  expired: boolean;
  onExpiry: () => void;
}

/** How often pending deadlines are checked: a timeout fires at most this much late. */
const SWEEP_MS = 20;

/**
 * Timeouts for many short operations without a timer each: one sweep every 20 ms while any is
 * pending calls the expired ones' callbacks. Adding and removing one is a Set operation.
 */
export class Deadlines {
  #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** A deadline `ms` from now; `onExpiry` runs once if it is not removed before. */
  add(ms: number, onExpiry: () => void): Deadline {
    const deadline = { at: performance.now() + ms, expired: false, onExpiry };
    this.#pending.add(deadline);
    this.#timer ??= setInterval(() => this.#sweep(), SWEEP_MS);
    return deadline;
  }

  /** Forgets a deadline (its operation ended in time, or ended anyway). */
  remove(deadline: Deadline): void {
    this.#pending.delete(deadline);
  }

  #sweep(): void {
    const now = performance.now();
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
