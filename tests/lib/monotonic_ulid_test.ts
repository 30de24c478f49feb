import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { monotonicUlid } from "../../src/lib/monotonic_ulid.ts";
import { isUlid } from "../../src/domain/customer.ts";

/** A PRNG answering fractions from a fixed byte sequence, as pooledRandom does from its pool. */
function bytesRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 24) / 256;
  };
}

Deno.test("monotonicUlid makes the ids ulid's monotonicFactory makes, for the same clock and PRNG", () => {
  // Times that repeat (increments within a millisecond), go back, and move on.
  const times = [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001];
  times.push(1_699_999_999_999, 1_700_000_000_002, 281_474_976_710_655, 0x7fff_ffff_ffff - 1);
  let at = 0;
  const ours = monotonicUlid(bytesRandom(7), () => times[at]);
  const theirs = monotonicFactory(bytesRandom(7));
  for (; at < times.length; at++) {
    const id = ours();
    assert.equal(id, theirs(times[at]));
    assert.ok(isUlid(id), id);
  }
});

Deno.test("monotonicUlid increments across carries within one millisecond and sorts", () => {
  // The random part "0ZZZ…Z" (ulid draws its last character first): the first increment carries
  // through all of it.
  const random = () => {
    let draws = 0;
    return () => draws++ % 16 === 15 ? 0 : 0.999;
  };
  const ours = monotonicUlid(random(), () => 5);
  const theirs = monotonicFactory(random());
  const ids = Array.from({ length: 40 }, () => ours());
  assert.deepEqual(ids, Array.from({ length: 40 }, () => theirs(5)));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(ids[1].slice(10), "1000000000000000");
});

Deno.test("monotonicUlid refuses a time a ULID cannot hold", () => {
  assert.throws(() => monotonicUlid(Math.random, () => 2 ** 48)(), RangeError);
  assert.throws(() => monotonicUlid(Math.random, () => 1.5)(), RangeError);
});
