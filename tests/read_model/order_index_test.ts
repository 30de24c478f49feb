import assert from "node:assert/strict";
import { OrderIndex } from "../../src/read_model/order_index.ts";
import { seededRandom } from "../../bench/support/prng.ts";

/** Ordinals keyed by a word (many ties), broken by the ordinal; rough = first letter. */
function wordOrder() {
  const keys = new Map<number, string>();
  const compare = (a: number, b: number) => {
    const [x, y] = [keys.get(a)!, keys.get(b)!];
    return x < y ? -1 : x > y ? 1 : a - b;
  };
  const index = new OrderIndex(compare, (o) => keys.get(o)!.charCodeAt(0), {
    of: (o) => keys.get(o)!,
    compareWith: (key, o) => (key < keys.get(o)! ? -1 : key > keys.get(o)! ? 1 : 0),
  });
  return { keys, compare, index };
}

function walked(index: OrderIndex, backwards = false): number[] {
  const out: number[] = [];
  const from = backwards ? index.seek(() => true) : { chunk: 0, at: 0 };
  index.walk(from, backwards, (o) => out.push(o) > 0);
  return out;
}

Deno.test("an order index keeps its ordinals sorted through thousands of inserts and deletes", () => {
  const random = seededRandom(3);
  const { keys, compare, index } = wordOrder();
  const live = new Set<number>();
  for (let step = 0; step < 30_000; step++) {
    const ordinal = Math.floor(random() * 5000);
    if (live.has(ordinal)) {
      assert.equal(index.delete(ordinal), true);
      live.delete(ordinal);
      // A deleted ordinal may come back with another key, as a changed customer does.
      keys.set(
        ordinal,
        String.fromCharCode(97 + Math.floor(random() * 6)) + Math.floor(random() * 50),
      );
    } else {
      keys.set(
        ordinal,
        keys.get(ordinal) ?? `${String.fromCharCode(97 + Math.floor(random() * 6))}`,
      );
      index.insert(ordinal);
      live.add(ordinal);
    }
  }
  const sorted = [...live].sort(compare);
  assert.equal(index.size, live.size);
  assert.deepEqual(walked(index), sorted);
  assert.deepEqual(walked(index, true), sorted.toReversed());
  keys.set(99_999, "c");
  assert.equal(index.delete(99_999), false, "an ordinal not there is not deleted");
});

Deno.test("seek finds the first ordinal a predicate does not hold for; rank counts those before", () => {
  const { keys, compare, index } = wordOrder();
  for (let ordinal = 0; ordinal < 3000; ordinal++) {
    keys.set(ordinal, `w${(ordinal * 7919) % 1000}`);
    index.insert(ordinal);
  }
  const sorted = [...keys.keys()].sort(compare);
  for (const word of ["w0", "w5", "w500", "w999", "x", ""]) {
    const position = index.seek((o) => keys.get(o)! < word);
    const expected = sorted.findIndex((o) => keys.get(o)! >= word);
    assert.equal(index.rank(position), expected === -1 ? sorted.length : expected, word);
    const after: number[] = [];
    index.walk(position, false, (o) => after.push(o) < 3);
    assert.deepEqual(after, sorted.slice(index.rank(position), index.rank(position) + 3), word);
    const before: number[] = [];
    index.walk(position, true, (o) => before.push(o) < 3);
    assert.deepEqual(
      before,
      sorted.slice(Math.max(0, index.rank(position) - 3), index.rank(position)).toReversed(),
      word,
    );
  }
});

Deno.test("a walk stops when visit says so and counts what it visited", () => {
  const { keys, index } = wordOrder();
  for (let ordinal = 0; ordinal < 2000; ordinal++) {
    keys.set(ordinal, "same");
    index.insert(ordinal);
  }
  let seen = 0;
  assert.equal(index.walk({ chunk: 0, at: 0 }, false, () => ++seen < 700), 700);
  assert.deepEqual(walked(index), [...keys.keys()], "ties keep ordinal order");
});
