import { DeadlineSweeper, type SweptDeadline } from "../lib/deadline_sweeper.ts";
import { BodyTimeoutError } from "./errors.ts";

/** Bodies are checked against deadlines every 100 ms: a request touches no timer of its own. */
const sweeper = new DeadlineSweeper(100);

/** How many body reads are watched now (for tests). */
export function watchedCount(): number {
  return sweeper.size;
}

/** The whole body's time limit: whichever read is waiting when it passes fails with 408. */
export class Deadline {
  #timeoutMs: number;
  #expired = false;
  #fail: ((error: Error) => void) | undefined;
  #watch: SweptDeadline;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#watch = sweeper.add(timeoutMs, () => this.expire());
  }

  /** `read`, or a BodyTimeoutError once the deadline passes first. */
  race<T>(read: Promise<T>): Promise<T> {
    if (this.#expired) return Promise.reject(new BodyTimeoutError(this.#timeoutMs));
    return new Promise<T>((resolve, reject) => {
      this.#fail = reject;
      read.then(resolve, reject);
    });
  }

  /** Fails the read waiting now (a settled one ignores it) and every later one. */
  expire(): void {
    const fail = this.#fail;
    this.stop();
    this.#expired = true;
    fail?.(new BodyTimeoutError(this.#timeoutMs));
  }

  /** Ends the watch once the body is read (or reading failed). */
  stop(): void {
    sweeper.remove(this.#watch);
    // The read's promise holds the body: a stopped deadline must not keep it.
    this.#fail = undefined;
  }
}
