import { monotonicFactory } from "ulid";
import { pooledRandom } from "./random_pool.ts";

/**
 * A monotonic ULID factory: the ulid package's monotonicFactory, with the random source and the
 * clock injectable so tests are deterministic. `random` answers a fraction in [0, 1).
 */
export function monotonicUlid(
  random: () => number = pooledRandom(),
  clock: () => number = Date.now,
): () => string {
  const next = monotonicFactory(random);
  return () => {
    const now = clock();
    // The package reads 0 as "now" and does not refuse a negative time: refused here instead.
    if (!Number.isSafeInteger(now) || now <= 0 || now >= 2 ** 48) {
      throw new RangeError(`A ULID cannot encode the time ${now}`);
    }
    return next(now);
  };
}
