/**
 * Runs an action once calls to `poke` have paused for `quietMs`: one timer however many pokes,
 * so a caller on a hot path pays a clock read per poke. The timer does not keep the process up.
 */
export class QuietTrigger {
  #quietMs: number;
  #action: () => void;
  #lastPoke = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(quietMs: number, action: () => void) {
    this.#quietMs = quietMs;
    this.#action = action;
  }

  /** Notes activity; the action runs `quietMs` after the last poke. */
  poke(): void {
    this.#lastPoke = performance.now();
    if (this.#timer === undefined) this.#arm(this.#quietMs);
  }

  /** Forgets a pending run. */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(wait: number): void {
    this.#timer = setTimeout(() => {
      const quiet = performance.now() - this.#lastPoke;
      if (quiet < this.#quietMs) return this.#arm(this.#quietMs - quiet);
      this.#timer = undefined;
      this.#action();
    }, wait);
    Deno.unrefTimer(this.#timer as unknown as number);
  }
}
