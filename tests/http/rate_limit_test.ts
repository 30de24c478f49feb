import assert from "node:assert/strict";
import { parseRatePolicy, type RateDecision, RateLimiter } from "../../src/http/rate_limit.ts";

/** A clock that moves only when the test says so. */
function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

function takeMany(limiter: RateLimiter, subject: string, n: number): RateDecision[] {
  return Array.from({ length: n }, () => limiter.take(subject));
}

Deno.test("parseRatePolicy reads per-second, per-minute and per-hour rates; burst defaults to the limit", () => {
  assert.deepEqual(parseRatePolicy("100/s"), { limit: 100, windowSeconds: 1, burst: 100 });
  assert.deepEqual(parseRatePolicy("6000/m"), { limit: 6000, windowSeconds: 60, burst: 6000 });
  assert.deepEqual(parseRatePolicy("100000/h", 50), {
    limit: 100000,
    windowSeconds: 3600,
    burst: 50,
  });
  assert.deepEqual(parseRatePolicy(" 5/s "), { limit: 5, windowSeconds: 1, burst: 5 });
});

Deno.test("parseRatePolicy refuses anything else, quoting it", () => {
  for (const text of ["0/s", "100/d", "100", "/s", "1.5/s", "-1/s", "100/S", "1000000000/s", ""]) {
    assert.throws(() => parseRatePolicy(text), {
      message: `RATE_LIMIT "${text}" must look like 100/s, 6000/m or 100000/h`,
    });
  }
});

Deno.test("a new subject may spend its whole burst at once, then is refused", () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ limit: 5, windowSeconds: 1, burst: 5 }, clock.now);
  assert.deepEqual(takeMany(limiter, "a", 6), [
    { allowed: true, remaining: 4, retryAfter: 0 },
    { allowed: true, remaining: 3, retryAfter: 0 },
    { allowed: true, remaining: 2, retryAfter: 0 },
    { allowed: true, remaining: 1, retryAfter: 0 },
    { allowed: true, remaining: 0, retryAfter: 0 },
    { allowed: false, remaining: 0, retryAfter: 1 },
  ]);
});

Deno.test("a burst larger than the rate allows that many requests at once", () => {
  const limiter = new RateLimiter({ limit: 1, windowSeconds: 1, burst: 3 }, manualClock().now);
  assert.deepEqual(takeMany(limiter, "a", 4).map((d) => d.allowed), [true, true, true, false]);
});

Deno.test("tokens refill at the rate, and never beyond the burst", () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ limit: 5, windowSeconds: 1, burst: 5 }, clock.now);
  takeMany(limiter, "a", 5);
  clock.advance(199);
  assert.equal(limiter.take("a").allowed, false, "0.995 of a token is not a token");
  clock.advance(1);
  assert.deepEqual(limiter.take("a"), { allowed: true, remaining: 0, retryAfter: 0 });
  assert.equal(limiter.take("a").allowed, false);
  clock.advance(60_000);
  assert.deepEqual(
    takeMany(limiter, "a", 6).map((d) => d.allowed),
    [true, true, true, true, true, false],
    "a long idle time refills the burst, not more",
  );
});

Deno.test("retryAfter is the whole seconds until the next token, rounded up", () => {
  const clock = manualClock();
  const hourly = new RateLimiter(parseRatePolicy("10/h", 1), clock.now);
  assert.equal(hourly.take("a").allowed, true);
  assert.deepEqual(hourly.take("a"), { allowed: false, remaining: 0, retryAfter: 360 });
  clock.advance(90_500);
  assert.deepEqual(hourly.take("a"), { allowed: false, remaining: 0, retryAfter: 270 });
  clock.advance(269_000);
  assert.deepEqual(hourly.take("a"), { allowed: false, remaining: 0, retryAfter: 1 });
  clock.advance(500);
  assert.equal(hourly.take("a").allowed, true);

  const perSecond = new RateLimiter(parseRatePolicy("100/s", 1), clock.now);
  perSecond.take("b");
  assert.deepEqual(perSecond.take("b"), { allowed: false, remaining: 0, retryAfter: 1 });
});

Deno.test("refused requests cost nothing: waiting retryAfter is always enough", () => {
  const clock = manualClock();
  const limiter = new RateLimiter(parseRatePolicy("60/m", 1), clock.now);
  limiter.take("a");
  for (let i = 0; i < 10; i++) assert.equal(limiter.take("a").allowed, false);
  const { retryAfter } = limiter.take("a");
  clock.advance(retryAfter * 1000);
  assert.equal(limiter.take("a").allowed, true);
});

Deno.test("each subject has its own bucket", () => {
  const limiter = new RateLimiter({ limit: 2, windowSeconds: 60, burst: 2 }, manualClock().now);
  takeMany(limiter, "alice", 3);
  assert.equal(limiter.take("alice").allowed, false);
  assert.deepEqual(limiter.take("bob"), { allowed: true, remaining: 1, retryAfter: 0 });
  assert.deepEqual(limiter.take("bob"), { allowed: true, remaining: 0, retryAfter: 0 });
  assert.equal(limiter.take("bob").allowed, false);
  assert.equal(limiter.take("alice").allowed, false, "bob's spending did not refill alice");
});

Deno.test("at most maxSubjects buckets are kept; the least recently seen subject is forgotten", () => {
  const policy = { limit: 1, windowSeconds: 3600, burst: 1 };
  const limiter = new RateLimiter(policy, manualClock().now, 2);
  limiter.take("a");
  limiter.take("b");
  assert.equal(limiter.take("a").allowed, false, "a is now the most recently seen");
  limiter.take("c"); // evicts b, the least recently seen
  assert.equal(limiter.take("a").allowed, false, "a was kept");
  assert.equal(limiter.take("c").allowed, false, "c was kept");
  assert.equal(limiter.take("b").allowed, true, "b was forgotten and starts with a full bucket");
  // Taking b again evicted a (least recent among a, c).
  assert.equal(limiter.take("a").allowed, true, "a was forgotten in turn");
});

Deno.test("a wall clock stepping backwards does not take away tokens a subject already has", () => {
  const clock = manualClock();
  const limiter = new RateLimiter({ limit: 5, windowSeconds: 1, burst: 5 }, clock.now);
  limiter.take("a");
  clock.advance(-3_600_000); // e.g. an NTP correction of the default Date.now clock
  const decision = limiter.take("a");
  assert.deepEqual(decision, { allowed: true, remaining: 3, retryAfter: 0 });
});

Deno.test("headers are the IETF RateLimit-Policy and RateLimit fields of the decision", () => {
  const clock = manualClock();
  const limiter = new RateLimiter(parseRatePolicy("6000/m", 2), clock.now);
  assert.deepEqual(limiter.headers(limiter.take("a")), {
    "ratelimit-policy": '"default";q=6000;w=60',
    "ratelimit": '"default";r=1;t=0',
  });
  assert.deepEqual(limiter.headers(limiter.take("a")), {
    "ratelimit-policy": '"default";q=6000;w=60',
    "ratelimit": '"default";r=0;t=0',
  });
  assert.deepEqual(limiter.headers(limiter.take("a")), {
    "ratelimit-policy": '"default";q=6000;w=60',
    "ratelimit": '"default";r=0;t=1',
  });
});
