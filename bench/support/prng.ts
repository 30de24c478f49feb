/**
 * A small seeded PRNG, shared by the benchmarks' fixtures and the tests: a fixture is reproducible,
 * and a randomised test prints a seed that replays its choices.
 */

/** Mulberry32: returns floats in [0, 1) determined by the 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed from env `name` when set (to repeat a run), else a fresh random one. */
export function seedFrom(name: string): number {
  const given = Deno.env.get(name);
  if (given !== undefined && given !== "") {
    if (!/^[0-9]+$/.test(given)) throw new Error(`${name} "${given}" must be an unsigned integer`);
    return Number(given) >>> 0;
  }
  return crypto.getRandomValues(new Uint32Array(1))[0];
}
