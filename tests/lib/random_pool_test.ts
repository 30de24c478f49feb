import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { pooledRandom } from "../../src/lib/random_pool.ts";

Deno.test("pooled random bytes are fractions of 256 in [0, 1), spread over every byte value", () => {
  const random = pooledRandom();
  const seen = new Set<number>();
  // Three pools' worth, so refilling is exercised too.
  for (let i = 0; i < 3 * 4096; i++) {
    const value = random();
    assert.ok(value >= 0 && value < 1, `${value}`);
    assert.equal(value * 256, Math.floor(value * 256));
    seen.add(value * 256);
  }
  assert.ok(seen.size > 250, `only ${seen.size} distinct bytes in 12,288 draws`);
});

Deno.test("ulid's monotonic factory with the pool makes distinct, ascending, well-formed ids", () => {
  const newId = monotonicFactory(pooledRandom());
  const ids = Array.from({ length: 10_000 }, () => newId());
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
});
