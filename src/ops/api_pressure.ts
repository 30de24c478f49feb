import process from "node:process";

/** How long one look at the requests under way and the process's CPU time covers. */
const WINDOW_MS = 50;
/** How many of the last looks the verdict is the median of. */
const LOOKS = 4;

/**
 * Whether the API is busy: over the median of the last four 50 ms looks, at least `concurrency`
 * requests queued while this process used `cpuShare` of a core. Background work gives way then;
 * the median keeps one slow look (a collection, a late fsync) from holding every delivery back.
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
  /** The last looks: requests under way on average, and the share of a core used. */
  #underWay: number[] = new Array(LOOKS).fill(0);
  #cpuUsed: number[] = new Array(LOOKS).fill(0);
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

  /** True while the API is busy (looked at afresh once per window). */
  busy(): boolean {
    const now = this.#clock();
    const elapsed = now - this.#at;
    if (elapsed < WINDOW_MS) return this.#busy;
    const cpu = this.#cpu();
    const requestTime = this.#requestTime();
    // Little's law: time spent in requests per unit of time is the number under way.
    push(this.#underWay, (requestTime - this.#requestTimeAt) * 1000 / elapsed);
    push(this.#cpuUsed, (cpu - this.#cpuAt) / 1000 / elapsed);
    this.#busy = median(this.#underWay) >= this.#concurrency &&
      median(this.#cpuUsed) >= this.#cpuShare;
    this.#at = now;
    this.#cpuAt = cpu;
    this.#requestTimeAt = requestTime;
    return this.#busy;
  }
}

function push(looks: number[], value: number): void {
  looks.shift();
  looks.push(value);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
