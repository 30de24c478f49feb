import assert from "node:assert/strict";
import { BlockArena } from "../../src/read_model/block_arena.ts";
import { PostingSet } from "../../src/read_model/posting_set.ts";
import { seededRandom } from "../../bench/support/prng.ts";

/** Every way to read a set back, each compared with the model. */
function assertSame(set: PostingSet, model: Set<number>, label: string): void {
  const sorted = [...model].sort((a, b) => a - b);
  assert.equal(set.size, model.size, label);
  assert.deepEqual([...set.toArray()], sorted, label);
  const seen: number[] = [];
  set.forEach((ordinal) => seen.push(ordinal));
  assert.deepEqual(seen, sorted, label);
  const words = new Uint32Array(((sorted.at(-1) ?? 0) >>> 5) + 1);
  set.orInto(words);
  const fromBits: number[] = [];
  words.forEach((word, i) => {
    for (let bit = 0; bit < 32; bit++) if (word & (1 << bit)) fromBits.push(i * 32 + bit);
  });
  assert.deepEqual(fromBits, sorted, label);
  // andInto keeps of a bitset exactly the members: here of every other ordinal and a tail.
  const span = (sorted.at(-1) ?? 0) + 70_000;
  const other = new Uint32Array((span >>> 5) + 1).fill(0x55555555);
  set.andInto(other);
  const both: number[] = [];
  other.forEach((word, i) => {
    for (let bit = 0; bit < 32; bit++) if (word & (1 << bit)) both.push(i * 32 + bit);
  });
  assert.deepEqual(both, sorted.filter((ordinal) => ordinal % 2 === 0), `${label}: andInto`);
}

Deno.test("a posting set agrees with a Set through adds and deletes at every density", () => {
  const random = seededRandom(11);
  const arena = new BlockArena();
  // Dense runs cross from arrays to bitmaps and back; sparse ones stay small or arrays.
  for (const [spread, steps] of [[100, 3000], [200_000, 20_000], [70_000, 40_000]]) {
    const set = new PostingSet(arena);
    const model = new Set<number>();
    for (let step = 0; step < steps; step++) {
      const ordinal = Math.floor(random() * spread);
      const adding = random() < (step < steps / 2 ? 0.8 : 0.3);
      assert.equal(
        adding ? set.add(ordinal) : set.delete(ordinal),
        adding ? !model.has(ordinal) : model.has(ordinal),
      );
      if (adding) model.add(ordinal);
      else model.delete(ordinal);
      if (step % 997 === 0) assert.equal(set.has(ordinal), model.has(ordinal));
    }
    assertSame(set, model, `spread ${spread}`);
    for (let probe = 0; probe < 2000; probe++) {
      const ordinal = Math.floor(random() * spread * 1.2);
      assert.equal(set.has(ordinal), model.has(ordinal), `has ${ordinal}`);
    }
  }
});

Deno.test("appends in order, the common case, stay exact past a container's 4,096 members", () => {
  const arena = new BlockArena();
  const set = new PostingSet(arena);
  const model = new Set<number>();
  for (let ordinal = 0; ordinal < 300_000; ordinal += 3) {
    set.add(ordinal);
    model.add(ordinal);
  }
  assertSame(set, model, "appended");
  assert.equal(set.add(3), false, "a member added again is not added");
  for (let ordinal = 0; ordinal < 300_000; ordinal += 6) {
    set.delete(ordinal);
    model.delete(ordinal);
  }
  assertSame(set, model, "half deleted");
});

Deno.test("many sets share one arena and a freed block serves another set", () => {
  const arena = new BlockArena();
  const sets = Array.from({ length: 50 }, () => new PostingSet(arena));
  const models = sets.map(() => new Set<number>());
  const random = seededRandom(5);
  for (let step = 0; step < 60_000; step++) {
    const which = Math.floor(random() * sets.length);
    const ordinal = Math.floor(random() * 150_000);
    if (random() < 0.6) {
      sets[which].add(ordinal);
      models[which].add(ordinal);
    } else {
      sets[which].delete(ordinal);
      models[which].delete(ordinal);
    }
  }
  sets.forEach((set, i) => assertSame(set, models[i], `set ${i}`));
  const bytes = arena.bytes;
  const holds = sets.map((_, i) => i);
  for (let round = 1; round <= 3; round++) {
    for (const [i, set] of sets.entries()) {
      for (const ordinal of models[holds[i]]) set.delete(ordinal);
    }
    sets.forEach((set) => assert.equal(set.size, 0));
    // Each set takes another's members: the blocks freed, now held by other sets.
    for (const [i, set] of sets.entries()) {
      holds[i] = (i + round) % sets.length;
      for (const ordinal of models[holds[i]]) set.add(ordinal);
    }
  }
  sets.forEach((set, i) => assertSame(set, models[holds[i]], `set ${i} at last`));
  assert.ok(
    arena.bytes <= bytes * 1.25,
    `the blocks freed are used again (${arena.bytes} > ${bytes})`,
  );
});
