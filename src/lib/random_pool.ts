/** Random bytes drawn from the system's CSPRNG a pool at a time. */
const POOL_BYTES = 4096;

/**
 * A PRNG for ULID factories (monotonic_ulid.ts, ulid's): each call answers one random byte as a
 * fraction in [0, 1), like ulid's own, but the bytes come from one crypto.getRandomValues call per
 * 4 KiB instead of one call (and one array) per byte.
 */
export function pooledRandom(): () => number {
  const pool = new Uint8Array(POOL_BYTES);
  let next = POOL_BYTES;
  return () => {
    if (next === POOL_BYTES) {
      crypto.getRandomValues(pool);
      next = 0;
    }
    return pool[next++] / 256;
  };
}
