/** How often, while the API is busy, delivery attempts may start, and how many each time. */
const BUSY_TICK_MS = 10;
const BUSY_STARTS_PER_TICK = 2;

/**
 * Lets delivery attempts start, yielding to a saturated API (`busy()`): then they start at the rate
 * above, first come first served, so the backlog grows instead of the API slowing. No bound on
 * attempts in flight: hanging endpoints would hold up healthy ones.
 */
export class DeliveryGate {
  #busy: () => boolean;
  #waiting: (() => void)[] = [];
  #startedThisTick = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #held = 0;
  #waitedMs = 0;

  constructor(busy: () => boolean = () => false) {
    this.#busy = busy;
  }

  /** How many attempts so far had to wait for their turn (the API was busy). */
  get held(): number {
    return this.#held;
  }

  /** Seconds those attempts waited, summed (loops wait side by side: it may outgrow the clock). */
  get waitedSeconds(): number {
    return this.#waitedMs / 1000;
  }

  /** Resolves when an attempt may start: undefined when it may at once (no promise made). */
  enter(): Promise<void> | undefined {
    if (this.#waiting.length === 0 && !this.#busy()) return undefined;
    if (this.#waiting.length === 0 && this.#startedThisTick < BUSY_STARTS_PER_TICK) {
      this.#startedThisTick++;
      this.#arm();
      return undefined;
    }
    this.#held++;
    const at = performance.now();
    const turn = new Promise<void>((resolve) =>
      this.#waiting.push(() => {
        this.#waitedMs += performance.now() - at;
        resolve();
      })
    );
    this.#arm();
    return turn;
  }

  /** Lets every waiting attempt go (at shutdown: their loops are stopping). */
  release(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  #arm(): void {
    this.#timer ??= setTimeout(() => this.#tick(), BUSY_TICK_MS);
  }

  #tick(): void {
    this.#timer = undefined;
    this.#startedThisTick = 0;
    const busy = this.#busy();
    while (this.#waiting.length > 0 && (!busy || this.#startedThisTick < BUSY_STARTS_PER_TICK)) {
      this.#startedThisTick++;
      this.#waiting.shift()!();
    }
    if (this.#waiting.length > 0 || this.#startedThisTick > 0) this.#arm();
  }
}
