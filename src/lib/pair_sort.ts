const BITS = 13;
const BUCKETS = 1 << BITS;

/**
 * Sorts the first `count` pairs (`keys[i]`, `values[i]`) by key, keeping the order of equal keys
 * (a two-pass radix sort: keys below 2^26). Returns the sorted arrays, which may be `spare`'s.
 */
export function sortPairs(
  keys: Uint32Array,
  values: Int32Array,
  count: number,
  spare: { keys: Uint32Array; values: Int32Array },
): { keys: Uint32Array; values: Int32Array } {
  const counts = new Uint32Array(BUCKETS);
  let [fromKeys, fromValues, toKeys, toValues] = [keys, values, spare.keys, spare.values];
  for (let shift = 0; shift < 2 * BITS; shift += BITS) {
    counts.fill(0);
    for (let i = 0; i < count; i++) counts[(fromKeys[i] >>> shift) & (BUCKETS - 1)]++;
    for (let bucket = 0, sum = 0; bucket < BUCKETS; bucket++) {
      const here = counts[bucket];
      counts[bucket] = sum;
      sum += here;
    }
    for (let i = 0; i < count; i++) {
      const at = counts[(fromKeys[i] >>> shift) & (BUCKETS - 1)]++;
      toKeys[at] = fromKeys[i];
      toValues[at] = fromValues[i];
    }
    [fromKeys, fromValues, toKeys, toValues] = [toKeys, toValues, fromKeys, fromValues];
  }
  return { keys: fromKeys, values: fromValues };
}
