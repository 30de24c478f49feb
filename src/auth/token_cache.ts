/** A verified token's result, kept until the token expires. */
interface Entry<T> {
  value: T;
  /** Milliseconds since the epoch after which the entry is gone. */
  until: number;
}

/** Remembers verified tokens (a map lookup, not a signature check), bounded, never past `exp`. */
export class TokenCache<T> {
  #entries = new Map<string, Entry<T>>();
  #maxEntries: number;
  #maxAgeMs: number;
  #clock: () => number;

  constructor(maxEntries = 4096, maxAgeMs = 60_000, clock: () => number = Date.now) {
    this.#maxEntries = maxEntries;
    this.#maxAgeMs = maxAgeMs;
    this.#clock = clock;
  }

  get(token: string): T | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (this.#clock() < entry.until) return entry.value;
    this.#entries.delete(token);
    return undefined;
  }

  /** Caches a verified token's result until min(exp, now + maxAge). */
  set(token: string, value: T, expSeconds: number): void {
    const now = this.#clock();
    const until = Math.min(expSeconds * 1000, now + this.#maxAgeMs);
    if (until <= now) return;
    if (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(token, { value, until });
  }

  /** The number of entries (expired ones included until they are looked up or evicted). */
  get size(): number {
    return this.#entries.size;
  }
}
