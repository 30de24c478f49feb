import assert from "node:assert/strict";
import { TokenCache } from "../../src/auth/token_cache.ts";

/** A clock the test moves by hand, in milliseconds since the epoch. */
function manualClock(start = 1_700_000_000_000) {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

const seconds = (ms: number) => ms / 1000;

Deno.test("a cached token is returned until its exp and not at or after it", () => {
  const clock = manualClock();
  const cache = new TokenCache<string>(10, 60_000, clock.read);
  const exp = seconds(clock.now + 5_000);
  cache.set("t", "alice", exp);
  assert.equal(cache.get("t"), "alice");
  clock.now += 4_999;
  assert.equal(cache.get("t"), "alice");
  clock.now += 1;
  assert.equal(cache.get("t"), undefined, "still served at exp");
  clock.now -= 1;
  assert.equal(cache.get("t"), undefined, "an entry found expired must be gone for good");
});

Deno.test("an entry never outlives maxAge even when the token's exp is much later", () => {
  const clock = manualClock();
  const cache = new TokenCache<string>(10, 60_000, clock.read);
  cache.set("t", "alice", seconds(clock.now + 3_600_000));
  clock.now += 59_999;
  assert.equal(cache.get("t"), "alice");
  clock.now += 1;
  assert.equal(cache.get("t"), undefined);
});

Deno.test("the default maxAge is at most 60 s", () => {
  const clock = manualClock();
  const cache = new TokenCache<string>(undefined, undefined, clock.read);
  cache.set("t", "alice", seconds(clock.now + 3_600_000));
  clock.now += 60_000;
  assert.equal(cache.get("t"), undefined);
});

Deno.test("a token whose exp has already passed is not stored at all", () => {
  const clock = manualClock();
  const cache = new TokenCache<string>(10, 60_000, clock.read);
  cache.set("past", "alice", seconds(clock.now - 1_000));
  cache.set("now", "bob", seconds(clock.now));
  assert.equal(cache.size, 0);
  assert.equal(cache.get("past"), undefined);
  assert.equal(cache.get("now"), undefined);
});

Deno.test("an expired entry is dropped when looked up, so it stops taking room", () => {
  const clock = manualClock();
  const cache = new TokenCache<string>(10, 60_000, clock.read);
  cache.set("short", "alice", seconds(clock.now + 1_000));
  cache.set("long", "bob", seconds(clock.now + 30_000));
  assert.equal(cache.size, 2);
  clock.now += 1_000;
  assert.equal(cache.get("short"), undefined);
  assert.equal(cache.size, 1);
  assert.equal(cache.get("long"), "bob");
});

Deno.test("the cache never holds more than maxEntries and evicts the oldest entry first", () => {
  const clock = manualClock();
  const cache = new TokenCache<number>(3, 60_000, clock.read);
  const exp = seconds(clock.now + 30_000);
  for (let i = 1; i <= 3; i++) cache.set(`t${i}`, i, exp);
  cache.set("t4", 4, exp);
  assert.equal(cache.size, 3);
  assert.equal(cache.get("t1"), undefined, "the oldest entry survived");
  assert.equal(cache.get("t2"), 2);
  assert.equal(cache.get("t4"), 4);
  for (let i = 5; i <= 100; i++) cache.set(`t${i}`, i, exp);
  assert.equal(cache.size, 3);
  assert.deepEqual([98, 99, 100].map((i) => cache.get(`t${i}`)), [98, 99, 100]);
});

Deno.test("tokens are told apart by their full text", () => {
  const clock = manualClock();
  const cache = new TokenCache<string>(10, 60_000, clock.read);
  cache.set("aaa.bbb.ccc", "alice", seconds(clock.now + 30_000));
  assert.equal(cache.get("aaa.bbb.ccd"), undefined);
  assert.equal(cache.get("aaa.bbb.cc"), undefined);
  assert.equal(cache.get("aaa.bbb.ccc"), "alice");
});
