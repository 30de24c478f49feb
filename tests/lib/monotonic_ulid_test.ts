import assert from "node:assert/strict";
import { decodeTime, encodeTime, incrementBase32, ULIDError } from "ulid";
import { monotonicUlid } from "../../src/lib/monotonic_ulid.ts";
import { pooledRandom } from "../../src/lib/random_pool.ts";

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A PRNG answering these base32 digits (as fractions of 32), in turn, then throwing. */
function digits(...values: number[]): () => number {
  let next = 0;
  return () => {
    if (next === values.length) throw new Error("no more digits");
    return values[next++] / 32;
  };
}

/** The PRNG answers for a random part spelled as `text`. */
function spelling(text: string): () => number {
  return digits(...[...text].reverse().map((char) => ENCODING.indexOf(char)));
}

Deno.test("ids spell their millisecond as the ulid package does, at the edges and in between", () => {
  const times = [1, 31, 32, 2 ** 40 - 1, 2 ** 40, 2 ** 45, 2 ** 48 - 1, Date.now()];
  for (let i = 0; i < 2000; i++) times.push(Math.floor(Math.random() * 2 ** 48));
  for (const time of times) {
    const id = monotonicUlid(pooledRandom(), () => time)();
    assert.match(id, ULID);
    assert.equal(id.slice(0, 10), encodeTime(time, 10), `${time}`);
    assert.equal(decodeTime(id), time);
  }
});

Deno.test("the random part is 16 characters drawn from the PRNG, the last drawn first", () => {
  const drawn = [1, 2, 3, 4, 5, 6, 7, 8, 24, 25, 26, 27, 28, 29, 30, 31];
  const id = monotonicUlid(digits(...drawn), () => 1000)();
  assert.equal(id.slice(10), drawn.map((digit) => ENCODING[digit]).reverse().join(""));
  const fresh = monotonicUlid(pooledRandom(), () => 1000);
  const parts = new Set(Array.from({ length: 200 }, (_, i) => {
    const newId = monotonicUlid(pooledRandom(), () => 1000 + i);
    return newId().slice(10);
  }));
  assert.equal(parts.size, 200, "fresh milliseconds draw fresh random parts");
  assert.match(fresh(), ULID);
});

Deno.test("ids of one millisecond add one to the random part, as ulid's increment does", () => {
  const newId = monotonicUlid(pooledRandom(), () => 1_700_000_000_000);
  const ids = Array.from({ length: 10_000 }, () => newId());
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (let i = 1; i < ids.length; i++) {
    assert.match(ids[i], ULID);
    assert.equal(ids[i], ids[i - 1].slice(0, 10) + incrementBase32(ids[i - 1].slice(10)));
  }
});

Deno.test("the increment carries from the low half into the high one", () => {
  const newId = monotonicUlid(spelling("00000007ZZZZZZZZ"), () => 5);
  const first = newId();
  const second = newId();
  assert.equal(first.slice(10), "00000007ZZZZZZZZ");
  assert.equal(second.slice(10), "0000000800000000");
  assert.equal(second.slice(10), incrementBase32(first.slice(10)));
  assert.equal(second.slice(0, 10), first.slice(0, 10));
});

Deno.test("a clock that goes back keeps the last millisecond and still ascends", () => {
  const times = [2000, 1999, 1500, 2000, 2001];
  const newId = monotonicUlid(pooledRandom(), () => times.shift()!);
  const ids = Array.from({ length: 5 }, () => newId());
  assert.deepEqual([...ids].sort(), ids);
  assert.deepEqual(ids.map(decodeTime), [2000, 2000, 2000, 2000, 2001]);
});

Deno.test("a random part that cannot increase further throws, as ulid's does", () => {
  const newId = monotonicUlid(spelling("ZZZZZZZZZZZZZZZZ"), () => 5);
  assert.equal(newId().slice(10), "ZZZZZZZZZZZZZZZZ");
  assert.throws(() => newId(), ULIDError);
});

Deno.test("a time a ULID cannot spell is refused", () => {
  for (const time of [2 ** 48, -1, 0, 1.5, NaN]) {
    assert.throws(() => monotonicUlid(pooledRandom(), () => time)(), RangeError, `${time}`);
  }
});

Deno.test("the default factory makes distinct, ascending, well-formed ids of the current time", () => {
  const before = Date.now();
  const newId = monotonicUlid();
  const ids = Array.from({ length: 10_000 }, () => newId());
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, ULID);
  assert.ok(decodeTime(ids[0]) >= before && decodeTime(ids.at(-1)!) <= Date.now());
});
