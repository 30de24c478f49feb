/** Random bytes drawn from the system's CSPRNG a pool at a time. */
const POOL_BYTES = 4096;

/** A PRNG for ULID factories: one random byte as a fraction in [0, 1), drawn from a 4 KiB pool. */
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
