import { BodyTimeoutError } from "./errors.ts";

/** How often the bodies being read are checked against their deadlines. */
const SWEEP_MS = 100;
/** The bodies being read: one shared timer checks them all, so a request starts no timer. */
const reading = new Set<Deadline>();
let sweeper: ReturnType<typeof setTimeout> | undefined;

/** Fails the reads whose deadline passed; runs every SWEEP_MS while a body is being read. */
function sweep(): void {
  sweeper = undefined;
  const now = performance.now();
  for (const deadline of reading) {
    if (deadline.expiresAt <= now) deadline.expire();
  }
  if (reading.size > 0) sweeper = setTimeout(sweep, SWEEP_MS);
}

/** The whole body's time limit: whichever read is waiting when it passes fails with 408. */
export class Deadline {
  /** When the body must be read by, in performance.now() time; checked within SWEEP_MS. */
  readonly expiresAt: number;
  #timeoutMs: number;
  #expired = false;
  #fail: ((error: Error) => void) | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.expiresAt = performance.now() + timeoutMs;
    reading.add(this);
    sweeper ??= setTimeout(sweep, SWEEP_MS);
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
    this.stop();
    this.#expired = true;
    this.#fail?.(new BodyTimeoutError(this.#timeoutMs));
  }

  /** Ends the watch once the body is read (or reading failed); the last one stops the timer. */
  stop(): void {
    reading.delete(this);
    if (reading.size === 0 && sweeper !== undefined) {
      clearTimeout(sweeper);
      sweeper = undefined;
    }
  }
}
