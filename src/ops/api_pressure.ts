import process from "node:process";

/** How long one look at the requests under way and the process's CPU time covers. */
const WINDOW_MS = 50;

/**
 * Whether the API is busy: over the last 50 ms at least `concurrency` requests (6 by default)
 * were under way on average — they queue — while this process used at least `cpuShare` of a core
 * (a tenth by default: on a crowded machine it gets little more), so the queueing is not just a
 * slow disk. Background work (webhook
 * delivery) asks it to give way; while requests do not queue, background work may use the whole
 * core (it then catches up).
 */
export class ApiPressure {
  #requestTime: () => number;
  #concurrency: number;
  #cpuShare: number;
  #cpu: () => number;
  #clock: () => number;
  #at: number;
  #cpuAt: number;
  #requestTimeAt: number;
  #busy = false;

  constructor(
    /** Seconds spent answering requests so far, each counted for at most the window (50 ms). */
    requestTime: () => number,
    concurrency = 6,
    cpuShare = 0.1,
    cpuMicros: () => number = () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    clock: () => number = () => performance.now(),
  ) {
    this.#requestTime = requestTime;
    this.#concurrency = concurrency;
    this.#cpuShare = cpuShare;
    this.#cpu = cpuMicros;
    this.#clock = clock;
    this.#at = clock();
    this.#cpuAt = cpuMicros();
    this.#requestTimeAt = requestTime();
  }

  /** True while the API is busy (looked at afresh once per 50 ms window). */
  busy(): boolean {
    const now = this.#clock();
    const elapsed = now - this.#at;
    if (elapsed < WINDOW_MS) return this.#busy;
    const cpu = this.#cpu();
    const requestTime = this.#requestTime();
    // Little's law: time spent in requests per unit of time is the number under way.
    const underWay = (requestTime - this.#requestTimeAt) * 1000 / elapsed;
    this.#busy = underWay >= this.#concurrency &&
      (cpu - this.#cpuAt) / 1000 >= elapsed * this.#cpuShare;
    this.#at = now;
    this.#cpuAt = cpu;
    this.#requestTimeAt = requestTime;
    return this.#busy;
  }
}
