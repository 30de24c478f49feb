import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import type { OrderIndex } from "../../src/read_model/order_index.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";

const NAMES = ["ada", "Ada", "ADA lovelace", "grace", "Grace Hopper", "zoë", "Zoe", "ada lovelace"];

function customer(random: () => number, n: number, version = 1): Customer {
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  return {
    id: `01JDQ8Z5K3M4N5P6Q7R8${String(n).padStart(6, "0")}`,
    name: `${NAMES[Math.floor(random() * NAMES.length)]}${random() < 0.3 ? "" : ` ${n % 7}`}`,
    email: `c${n}@example.com`,
    phone: null,
    address: null,
    metadata: {},
    created_at: at(Math.floor(random() * 1000) * 1000),
    updated_at: at(Math.floor(random() * 1000) * 1000),
    version,
  };
}

function walked(order: OrderIndex): number[] {
  const out: number[] = [];
  order.walk({ chunk: 0, at: 0 }, false, (ordinal) => out.push(ordinal) > 0);
  return out;
}

/** The ordinals of the live customers sorted by `key`, ties by id. */
function expected(projection: CustomerProjection, key: (c: Customer) => string | number): number[] {
  const live: [number, Customer][] = [];
  for (let ordinal = 0; ordinal < projection.ordinalLimit; ordinal++) {
    const text = projection.textAt(ordinal);
    if (text !== undefined) live.push([ordinal, JSON.parse(text)]);
  }
  return live.sort(([, a], [, b]) => {
    const [x, y] = [key(a), key(b)];
    return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : 1;
  }).map(([ordinal]) => ordinal);
}

Deno.test("the orders are exact after a build in slices with customers changing between them", () => {
  const seed = seedFrom("ORDERS_SEED");
  const random = seededRandom(seed);
  const projection = new CustomerProjection();
  for (let n = 0; n < 20_000; n++) projection.put(customerText(customer(random, n)));
  let next = 20_000;
  let clock = 0;
  let slices = 0;
  // Every call of the clock moves it on: a slice ends at its first look at the time.
  while (!projection.search.buildSlice(projection.ordinalLimit, () => clock++, clock + 1)) {
    slices++;
    for (let i = 0; i < 20; i++) {
      const roll = random();
      const n = Math.floor(random() * next);
      if (roll < 0.2) projection.remove(customer(random, n).id);
      else if (roll < 0.4) projection.put(customerText(customer(random, next++)));
      else projection.put(customerText(customer(random, n, 2)));
    }
  }
  assert.ok(slices > 50, `seed ${seed}: the build took ${slices} slices`);
  const orders = projection.search.orders;
  assert.deepEqual(
    walked(orders.name),
    expected(projection, (c) => c.name.toLowerCase()),
    `seed ${seed}: name`,
  );
  assert.deepEqual(
    walked(orders.created),
    expected(projection, (c) => Date.parse(c.created_at)),
    `seed ${seed}: created`,
  );
  assert.deepEqual(
    walked(orders.updated),
    expected(projection, (c) => Date.parse(c.updated_at)),
    `seed ${seed}: updated`,
  );
  // And after the build, changes keep them exact.
  for (let i = 0; i < 2000; i++) {
    projection.put(customerText(customer(random, Math.floor(random() * next), 3)));
  }
  assert.deepEqual(
    walked(projection.search.orders.name),
    expected(projection, (c) => c.name.toLowerCase()),
    `seed ${seed}: name after`,
  );
});
