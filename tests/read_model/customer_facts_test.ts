import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import {
  canonicalEmail,
  canonicalFacts,
  canonicalVersion,
  customerFacts,
} from "../../src/read_model/customer_facts.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import { CustomerGenerator } from "../support/generated_customers.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";

const COUNT = 600;
const seed = seedFrom("FACTS_SEED");

function factsByParsing(json: string) {
  const customer = JSON.parse(json) as Customer;
  return { id: customer.id, email: customer.email, version: customer.version };
}

/** The customer's fields serialised in the given order (what another writer might produce). */
function textInOrder(customer: Customer, order: readonly string[]): string {
  const fields = customer as unknown as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(order.map((field) => [field, fields[field]])));
}

Deno.test(`the fast path reads every generated customer's canonical text as JSON.parse does (FACTS_SEED=${seed})`, () => {
  const generate = new CustomerGenerator(seededRandom(seed));
  for (let i = 0; i < COUNT; i++) {
    const customer = generate.customer();
    const text = customerText(customer);
    const fast = canonicalFacts(text);
    // A change of the canonical order that moves id, name, email or version fails here.
    assert.notEqual(fast, undefined, `canonical text missed the fast path: ${text}`);
    assert.deepEqual(fast, factsByParsing(text), text);
    assert.deepEqual(customerFacts(text), factsByParsing(text), text);
    assert.equal(canonicalVersion(text), customer.version, text);
    assert.equal(canonicalEmail(text), customer.email, text);
  }
});

Deno.test(`text in any other field order never misleads the fast path and customerFacts still agrees with JSON.parse (FACTS_SEED=${seed})`, () => {
  const generate = new CustomerGenerator(seededRandom(seed ^ 0x5eed));
  const canonical = Object.keys(JSON.parse(customerText(generate.customer())));
  const orders = [
    [...canonical].reverse(),
    ["version", ...canonical.filter((field) => field !== "version")],
    ["id", "email", "name", ...canonical.slice(3)],
    ["name", "id", ...canonical.slice(2)],
  ];
  for (let i = 0; i < COUNT; i++) {
    const customer = generate.customer();
    for (const order of [...orders, shuffled(canonical, generate)]) {
      const text = textInOrder(customer, order);
      const fast = canonicalFacts(text);
      if (fast !== undefined) assert.deepEqual(fast, factsByParsing(text), text);
      assert.equal(canonicalEmail(text), fast?.email, text);
      assert.deepEqual(customerFacts(text), factsByParsing(text), text);
    }
    for (const order of orders) {
      assert.equal(canonicalFacts(textInOrder(customer, order)), undefined);
      assert.equal(canonicalEmail(textInOrder(customer, order)), undefined);
    }
  }
});

Deno.test("a version of 16 digits falls back to JSON.parse and still reads right", () => {
  const customer = new CustomerGenerator(seededRandom(1)).customer();
  const text = customerText({ ...customer, version: Number.MAX_SAFE_INTEGER });
  assert.equal(canonicalFacts(text), undefined);
  assert.equal(canonicalEmail(text), undefined);
  assert.equal(customerFacts(text).version, Number.MAX_SAFE_INTEGER);
  assert.equal(canonicalVersion(text), Number.MAX_SAFE_INTEGER, "read from the end all the same");
});

function shuffled<T>(list: readonly T[], generate: CustomerGenerator): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = generate.int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

Deno.test("a text is canonical only when it ends in the version member: a version in metadata or after the brace does not count", () => {
  const customer = new CustomerGenerator(seededRandom(2)).customer();
  const text = customerText(customer);
  const body = text.slice(0, text.lastIndexOf(',"version":'));
  for (
    const tail of [
      ',"version":7}}',
      ',"version":7} ',
      ',"version":}',
      ',"version":-7}',
      ',"version":1.5}',
      ',"version":"7"}',
      ',"version":1234567890123456}',
    ]
  ) {
    assert.equal(canonicalFacts(body + tail), undefined, tail);
    assert.equal(canonicalEmail(body + tail), undefined, tail);
  }
  assert.deepEqual(canonicalFacts(`${body},"version":123456789012345}`), {
    id: customer.id,
    email: customer.email,
    version: 123456789012345,
  });
});
