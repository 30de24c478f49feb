import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import { ADDRESS_FIELDS } from "../../src/domain/customer.ts";
import { customerText, keptCustomerText } from "../../src/read_model/customer_text.ts";
import { CustomerGenerator } from "../support/generated_customers.ts";
import { seededRandom, seedFrom } from "../support/prng.ts";

const seed = seedFrom("TEXT_SEED");
/** The canonical order: GET answers it, and customer_facts.ts relies on its first and last. */
const CANONICAL_ORDER = [
  "id",
  "name",
  "email",
  "phone",
  "address",
  "metadata",
  "created_at",
  "updated_at",
  "version",
];

Deno.test(`customerText writes every field in the canonical order and loses nothing (TEXT_SEED=${seed})`, () => {
  const generate = new CustomerGenerator(seededRandom(seed));
  for (let i = 0; i < 300; i++) {
    const customer = generate.customer();
    const text = customerText(customer);
    const parsed = JSON.parse(text);
    assert.deepEqual(Object.keys(parsed), CANONICAL_ORDER);
    if (parsed.address !== null) assert.deepEqual(Object.keys(parsed.address), [...ADDRESS_FIELDS]);
    assert.deepEqual(parsed, customer);
    assert.deepEqual(Object.keys(parsed.metadata), Object.keys(customer.metadata));
  }
});

Deno.test(`customerText is the same text whatever the order of the object's own keys (TEXT_SEED=${seed})`, () => {
  const generate = new CustomerGenerator(seededRandom(seed ^ 0x7e47));
  for (let i = 0; i < 300; i++) {
    const customer = generate.customer();
    const entries = Object.entries(customer).reverse();
    const address = customer.address === null
      ? null
      : Object.fromEntries(Object.entries(customer.address).reverse());
    const reordered = { ...Object.fromEntries(entries), address } as Customer;
    assert.equal(customerText(reordered), customerText(customer));
  }
});

Deno.test("keptCustomerText's text answers the next customerText call of that object once", () => {
  const customer = new CustomerGenerator(seededRandom(7)).customer();
  const first = keptCustomerText(customer);
  assert.equal(first, customerText({ ...customer }));
  // Another object of the same customer is not answered from the kept text.
  const renamed = { ...customer, name: "Renamed" };
  assert.equal(JSON.parse(customerText(renamed)).name, "Renamed");
  (customer as { name: string }).name = "Changed";
  assert.equal(customerText(customer), first);
  // Taken: a later call makes the text afresh.
  assert.equal(JSON.parse(customerText(customer)).name, "Changed");
});
