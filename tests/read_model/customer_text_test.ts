import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import { ADDRESS_FIELDS } from "../../src/domain/customer.ts";
import type { CustomerCommand } from "../../src/domain/commands.ts";
import { decide } from "../../src/domain/decide.ts";
import { customerText, decidedCustomerText } from "../../src/read_model/customer_text.ts";
import { CustomerGenerator } from "../support/generated_customers.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";

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

Deno.test("decidedCustomerText of whatever decide makes is the canonical text", () => {
  const state = { get: (id: string) => customers.get(id), emailOwner: () => undefined };
  const customers = new Map<string, Customer>();
  const context = {
    now: () => "2026-11-26T12:00:00.000Z",
    newId: () => "01JDQ8Z5K3M4N5P6Q7R8S9T0VW",
  };
  const body = {
    metadata: { b: "2", a: "1", "10": "x", "2": "y" },
    address: { country: "DE", city: "Berlin", line1: "Street 1" },
    phone: "+4930123456",
    email: "Ada@Example.com",
    name: " Ada ",
  };
  const created = decide({ type: "CreateCustomer", body }, state, context);
  // A copy with its members reversed: customerText puts it in the canonical order.
  const canonical = (c: Customer) =>
    customerText(Object.fromEntries(Object.entries(c).reverse()) as Customer);
  assert.equal(decidedCustomerText(created.data!), canonical(created.data!));
  customers.set(created.id, JSON.parse(canonical(created.data!)));
  const commands: CustomerCommand[] = [
    { type: "ReplaceCustomer", id: created.id, body: { email: "b@example.com", name: "B" } },
    {
      type: "PatchCustomer",
      id: created.id,
      patch: { address: { region: "BE" }, metadata: { c: "3" } },
    },
  ];
  for (const command of commands) {
    const event = decide(command, state, context)!;
    assert.equal(decidedCustomerText(event.data!), canonical(event.data!));
  }
});
