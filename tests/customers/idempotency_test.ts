import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import {
  DEFAULT_IDEMPOTENCY_MAX_KEYS,
  IDEMPOTENCY_TTL_MS,
  IdempotencyKeys,
} from "../../src/customers/idempotency.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");

function result(n: number, at = T0 + n) {
  const customer = { id: `C${n}`, name: `Customer ${n}` } as unknown as Customer;
  return { requestHash: `hash-${n}`, customer, at };
}

Deno.test("past IDEMPOTENCY_MAX_KEYS the oldest key is forgotten first, the newest still replay", () => {
  const keys = new IdempotencyKeys(3);
  for (let n = 1; n <= 5; n++) keys.remember("alice", `key-${n}`, result(n));
  assert.equal(keys.size, 3);
  const now = T0 + 10;
  assert.equal(keys.lookup("alice", "key-1", now), undefined);
  assert.equal(keys.lookup("alice", "key-2", now), undefined);
  for (const n of [3, 4, 5]) {
    assert.equal(keys.lookup("alice", `key-${n}`, now)?.requestHash, `hash-${n}`);
  }
});

Deno.test("the cap counts keys of every subject together, in the order they were remembered", () => {
  const keys = new IdempotencyKeys(2);
  keys.remember("alice", "k", result(1));
  keys.remember("bob", "k", result(2));
  keys.remember("carol", "k", result(3));
  const now = T0 + 10;
  assert.equal(keys.lookup("alice", "k", now), undefined);
  assert.equal(keys.lookup("bob", "k", now)?.requestHash, "hash-2");
  assert.equal(keys.lookup("carol", "k", now)?.requestHash, "hash-3");
});

Deno.test("far past the cap the number of remembered keys stays at the cap", () => {
  const keys = new IdempotencyKeys(1000);
  for (let n = 0; n < 50_000; n++) keys.remember("alice", `key-${n}`, result(n));
  assert.equal(keys.size, 1000);
  assert.equal([...keys.entries(T0 + 50_000)].length, 1000);
  assert.equal(keys.lookup("alice", "key-49000", T0 + 50_000)?.requestHash, "hash-49000");
  assert.equal(keys.lookup("alice", "key-48999", T0 + 50_000), undefined);
});

Deno.test("keys older than the TTL are still forgotten below the cap", () => {
  const keys = new IdempotencyKeys(10);
  keys.remember("alice", "old", result(1, T0));
  keys.remember("alice", "new", result(2, T0 + IDEMPOTENCY_TTL_MS));
  assert.equal(keys.size, 1);
  assert.equal(keys.lookup("alice", "new", T0 + IDEMPOTENCY_TTL_MS)?.requestHash, "hash-2");
});

Deno.test("the default cap is 100,000 keys", () => {
  assert.equal(DEFAULT_IDEMPOTENCY_MAX_KEYS, 100_000);
  const keys = new IdempotencyKeys();
  for (let n = 0; n < 100_001; n++) keys.remember("alice", `key-${n}`, result(n));
  assert.equal(keys.size, 100_000);
});
