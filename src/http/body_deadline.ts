import { BodyTimeoutError } from "./errors.ts";

/** How often the bodies being read are checked against their deadlines. */
const SWEEP_MS = 100;
/**
 * The bodies being read. One timer checks them all: it is made at most once per SWEEP_MS (a
 * timer made and cleared per request cost about 6 µs of CPU) and holds the process open only
 * while a body is being read.
 */
const reading = new Set<Deadline>();
let sweeper: ReturnType<typeof setTimeout> | undefined;

/** Fails the reads whose deadline passed; runs every SWEEP_MS until it finds none left. */
function sweep(): void {
  const now = performance.now();
  for (const deadline of reading) {
    if (deadline.expiresAt <= now) deadline.expire();
  }
  sweeper = reading.size > 0 ? setTimeout(sweep, SWEEP_MS) : undefined;
}

function watch(deadline: Deadline): void {
  reading.add(deadline);
  if (sweeper === undefined) sweeper = setTimeout(sweep, SWEEP_MS);
  else if (reading.size === 1) Deno.refTimer(sweeper as unknown as number);
}

function unwatch(deadline: Deadline): void {
  if (reading.delete(deadline) && reading.size === 0 && sweeper !== undefined) {
    Deno.unrefTimer(sweeper as unknown as number);
  }
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
    watch(this);
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

  /** Ends the watch once the body is read (or reading failed). */
  stop(): void {
    unwatch(this);
  }
}
