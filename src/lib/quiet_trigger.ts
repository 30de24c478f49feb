/** Runs an action once `poke` calls pause for `quietMs`, on one unref'd timer for all pokes. */
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
