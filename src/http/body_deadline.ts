import { BodyTimeoutError } from "./errors.ts";

/** How often the bodies being read are checked against their deadlines. */
const SWEEP_MS = 100;
/**
 * The bodies being read, and those read since the last sweep: a finished read is only marked
 * stopped, and the next sweep drops it. One timer checks them all, made at most once per
 * SWEEP_MS while bodies arrive and left to end on the first sweep that finds none being read
 * (within SWEEP_MS of the last). So a request touches no timer: a timer made and cleared per
 * request cost about 6 µs of CPU, a Set entry plus a ref and an unref of the shared one about 2.
 */
let watched: Deadline[] = [];
let sweeper: ReturnType<typeof setTimeout> | undefined;
/**
 * The watched count at which finished reads are dropped before the sweep: at a few thousand
 * bodies a second a sweep found about a thousand, each kept up to SWEEP_MS, long enough to
 * outlive a young-generation collection and be promoted to the old one, to be collected there.
 * Dropped within a few hundred bodies, they die young. It doubles with the reads still going on,
 * so a crowd of slow bodies is not scanned again for each new one.
 */
const DROP_AT_LEAST = 256;
let dropAt = DROP_AT_LEAST;

/** How many deadlines are watched now, finished ones not yet dropped included (for tests). */
export function watchedCount(): number {
  return watched.length;
}

/** Drops the finished reads from the watch, once there are a few hundred (see DROP_AT_LEAST). */
function watch(deadline: Deadline): void {
  if (watched.length >= dropAt) {
    watched = watched.filter((other) => !other.stopped);
    dropAt = Math.max(DROP_AT_LEAST, 2 * watched.length);
  }
  watched.push(deadline);
}

/** Fails the reads whose deadline passed, drops the finished ones; runs while any is left. */
function sweep(): void {
  const now = performance.now();
  const still: Deadline[] = [];
  for (const deadline of watched) {
    if (deadline.stopped) continue;
    if (deadline.expiresAt <= now) deadline.expire();
    else still.push(deadline);
  }
  watched = still;
  dropAt = Math.max(DROP_AT_LEAST, 2 * still.length);
  sweeper = still.length > 0 ? setTimeout(sweep, SWEEP_MS) : undefined;
}

/** The whole body's time limit: whichever read is waiting when it passes fails with 408. */
export class Deadline {
  /** When the body must be read by, in performance.now() time; checked within SWEEP_MS. */
  readonly expiresAt: number;
  /** Set once the body is read (or reading failed, or the deadline passed). */
  stopped = false;
  #timeoutMs: number;
  #expired = false;
  #fail: ((error: Error) => void) | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.expiresAt = performance.now() + timeoutMs;
    watch(this);
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
    const fail = this.#fail;
    this.stop();
    this.#expired = true;
    fail?.(new BodyTimeoutError(this.#timeoutMs));
  }

  /** Ends the watch once the body is read (or reading failed); the next sweep drops it. */
  stop(): void {
    this.stopped = true;
    // The read's promise holds the body: a stopped deadline must not keep it until the sweep.
    this.#fail = undefined;
  }
}
