import process from "node:process";

/** How long one look at the request count and the process's CPU time covers. */
const WINDOW_MS = 50;

/**
 * Whether the API is busy: in the last 50 ms it answered at least `requestsPerSecond` (1,000 a
 * second by default) while this process used at least `cpuShare` (half) of a core. Background
 * work (webhook delivery) asks it to give way. The request rate tells API work from background
 * work, which uses CPU too: while the API is quiet, background work may use the whole core.
 */
export class ApiPressure {
  #requests: () => number;
  #requestsPerSecond: number;
  #cpuShare: number;
  #cpu: () => number;
  #clock: () => number;
  #at: number;
  #cpuAt: number;
  #requestsAt: number;
  #busy = false;

  constructor(
    requests: () => number,
    requestsPerSecond = 1000,
    cpuShare = 0.5,
    cpuMicros: () => number = () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    clock: () => number = () => performance.now(),
  ) {
    this.#requests = requests;
    this.#requestsPerSecond = requestsPerSecond;
    this.#cpuShare = cpuShare;
    this.#cpu = cpuMicros;
    this.#clock = clock;
    this.#at = clock();
    this.#cpuAt = cpuMicros();
    this.#requestsAt = requests();
  }

  /** True while the API is busy (looked at afresh once per 50 ms window). */
  busy(): boolean {
    const now = this.#clock();
    const elapsed = now - this.#at;
    if (elapsed < WINDOW_MS) return this.#busy;
    const cpu = this.#cpu();
    const requests = this.#requests();
    this.#busy = requests - this.#requestsAt >= elapsed / 1000 * this.#requestsPerSecond &&
      (cpu - this.#cpuAt) / 1000 >= elapsed * this.#cpuShare;
    this.#at = now;
    this.#cpuAt = cpu;
    this.#requestsAt = requests;
    return this.#busy;
  }
}
