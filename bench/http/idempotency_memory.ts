/**
 * Heap bytes per remembered Idempotency-Key, for docs/api.md's figure and IDEMPOTENCY_MAX_KEYS's
 * default: `deno run --v8-flags=--expose-gc bench/http/idempotency_memory.ts [keys]`.
 */
import { IdempotencyKeys } from "../../src/customers/idempotency.ts";
import { requestHash } from "../../src/customers/request_hash.ts";

const KEYS = Number(Deno.args[0] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run with --v8-flags=--expose-gc");

/** A customer as replay builds it: parsed from the event's JSON text, one object per key. */
function customerJson(n: number): string {
  return JSON.stringify({
    id: `01J${String(n).padStart(23, "0")}`,
    name: `Customer Number ${n}`,
    email: `customer.${n}@example.com`,
    phone: "+15551234567",
    address: {
      line1: `${n} Main Street`,
      line2: null,
      city: "Springfield",
      region: "IL",
      postal_code: "62701",
      country: "US",
    },
    metadata: { source: "bench" },
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    version: 1,
  });
}

function heap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

const keys = new IdempotencyKeys(KEYS);
const before = heap();
for (let n = 0; n < KEYS; n++) {
  const json = customerJson(n);
  keys.remember("client-subject-0001", crypto.randomUUID(), {
    requestHash: requestHash(JSON.parse(json)),
    customer: JSON.parse(json),
    at: Date.now(),
  });
}
const after = heap();
console.log(
  `${KEYS} keys: ${((after - before) / 1e6).toFixed(1)} MB, ${
    Math.round((after - before) / KEYS)
  } bytes per key (${keys.size} remembered)`,
);
