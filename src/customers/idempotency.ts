import type { Customer } from "../domain/customer.ts";

/** How long a key is remembered (contract §4: 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** IDEMPOTENCY_MAX_KEYS's default: a bound on the heap the remembered keys take. */
export const DEFAULT_IDEMPOTENCY_MAX_KEYS = 100_000;

/** The first answer to a create that carried an idempotency key. */
export interface IdempotentResult {
  requestHash: string;
  customer: Customer;
  /** When the first request was answered, in ms since the epoch. */
  at: number;
}

/**
 * Idempotency keys of creates, scoped by token subject so no client collides with or replays
 * another's key. Learnt from durable events; past `maxKeys` the oldest is forgotten.
 */
export class IdempotencyKeys {
  #done = new Map<string, IdempotentResult>();
  #inFlight = new Set<string>();
  #maxKeys: number;

  constructor(maxKeys = DEFAULT_IDEMPOTENCY_MAX_KEYS) {
    this.#maxKeys = maxKeys;
  }

  /** How many keys are remembered (expired ones may still count until the next `remember`). */
  get size(): number {
    return this.#done.size;
  }

  /** The remembered result for this key, if it is younger than the TTL at `now`. */
  lookup(actor: string, key: string, now: number): IdempotentResult | undefined {
    const result = this.#done.get(scope(actor, key));
    return result !== undefined && now - result.at < IDEMPOTENCY_TTL_MS ? result : undefined;
  }

  /** True while a request with this key is being processed. */
  isInFlight(actor: string, key: string): boolean {
    return this.#inFlight.has(scope(actor, key));
  }

  /** Marks the key as being processed until release. */
  begin(actor: string, key: string): void {
    this.#inFlight.add(scope(actor, key));
  }

  /** Ends the in-flight mark of a key. */
  release(actor: string, key: string): void {
    this.#inFlight.delete(scope(actor, key));
  }

  /** Every remembered key younger than the TTL at `now`. */
  *entries(now: number): Iterable<IdempotencyEntry> {
    for (const [id, result] of this.#done) {
      if (now - result.at >= IDEMPOTENCY_TTL_MS) continue;
      const split = id.indexOf("\u0000");
      yield { actor: id.slice(0, split), key: id.slice(split + 1), ...result };
    }
  }

  /** Remembers a durable result and forgets the ones past their TTL, then the oldest past the cap. */
  remember(actor: string, key: string, result: IdempotentResult): void {
    const id = scope(actor, key);
    this.#done.delete(id);
    this.#done.set(id, result);
    // Results arrive in time order, so expired ones and then the oldest sit at the front of the map.
    for (const [oldest, entry] of this.#done) {
      if (result.at - entry.at < IDEMPOTENCY_TTL_MS && this.#done.size <= this.#maxKeys) break;
      this.#done.delete(oldest);
    }
  }
}

/** A remembered key with its scope, as a snapshot stores it. */
export interface IdempotencyEntry extends IdempotentResult {
  actor: string;
  key: string;
}

function scope(actor: string, key: string): string {
  return `${actor}\u0000${key}`;
}
