import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import { nameOrEmailMatcher } from "../../src/read_model/customer_search.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import { CustomerGenerator } from "../support/generated_customers.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";

const seed = seedFrom("SEARCH_SEED");

/** What contract §4 says q does: a case-insensitive substring of the name or the email. */
function matchesByParsing(q: string, json: string): boolean {
  const customer = JSON.parse(json) as Customer;
  const needle = q.toLowerCase();
  return customer.name.toLowerCase().includes(needle) ||
    customer.email.toLowerCase().includes(needle);
}

/** A query as a URL can carry it (well-formed text): a slice of the name or email, case changed. */
function queryFrom(customer: Customer, generate: CustomerGenerator): string {
  if (generate.int(5) === 0) return generate.text(4).replace(/[\ud800-\udfff]/g, "");
  const points = [...(generate.int(2) === 0 ? customer.name : customer.email)]
    .filter((point) => point !== "\ud800");
  const start = generate.int(points.length);
  const slice = points.slice(start, start + 1 + generate.int(6)).join("");
  const cased = [slice, slice.toUpperCase(), slice.toLowerCase()][generate.int(3)];
  return cased === "" ? "a" : cased;
}

Deno.test(`the q matcher agrees with JSON.parse and toLowerCase on generated customers (SEARCH_SEED=${seed})`, () => {
  const generate = new CustomerGenerator(seededRandom(seed));
  const records = Array.from({ length: 300 }, () => ({ json: customerText(generate.customer()) }));
  let hits = 0;
  for (let i = 0; i < 3000; i++) {
    const q = queryFrom(JSON.parse(generate.pick(records).json), generate);
    const matches = nameOrEmailMatcher(q);
    for (let j = 0; j < 5; j++) {
      const record = generate.pick(records);
      const expected = matchesByParsing(q, record.json);
      if (expected) hits++;
      assert.equal(matches(record.json), expected, `q ${JSON.stringify(q)} on ${record.json}`);
    }
  }
  assert.ok(hits > 1000, `only ${hits} matches: the queries do not exercise the matcher`);
});

Deno.test("q finds names whose lower case is not their case folding (İ, K, Ω, ẞ, ϴ)", () => {
  const customer = new CustomerGenerator(seededRandom(11)).customer();
  for (
    const [name, q] of [
      ["İpek", "i"],
      ["İpek", "İ"],
      ["Kelvin", "k"],
      ["Ohm Ω", "ω"],
      ["GROẞ", "ß"],
      ["ϴ", "θ"],
      ["Ꭰ", "ꭰ"],
    ]
  ) {
    const record = { json: customerText({ ...customer, name }) };
    assert.equal(matchesByParsing(q, record.json), true, `${name} ${q}`);
    assert.equal(nameOrEmailMatcher(q)(record.json), true, `${name} ${q}`);
  }
});

Deno.test("q that is only JSON escapes or quotes finds what the text escapes, and nothing else", () => {
  const customer = new CustomerGenerator(seededRandom(12)).customer();
  const record = {
    json: customerText({ ...customer, name: 'Say "hi"\\\n\u0001', email: "a@b.de" }),
  };
  for (const q of ['"hi"', "\\", "\n", "\u0001", 'Y "H']) {
    assert.equal(nameOrEmailMatcher(q)(record.json), true, q);
  }
  for (const q of ['\\"', "\\n", "u0001", '"email"']) {
    assert.equal(nameOrEmailMatcher(q)(record.json), false, q);
  }
});
