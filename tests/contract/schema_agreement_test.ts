/** The CustomerInput schema and parseCustomerInput accept and refuse exactly the same bodies. */
import assert from "node:assert/strict";
import { mergePatchViolations, parseCustomerInput } from "../../src/domain/validation.ts";
import { schemaErrors } from "../support/contract.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";

type Variants = Record<string, unknown[]>;

const long = (n: number, unit = "a") => unit.repeat(n);
const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
const ABSENT = Symbol("absent");

/** Values at and just beyond the edge of every rule, valid and invalid mixed. */
const FIELDS: Variants = {
  name: [
    "A",
    " Ada ",
    long(200),
    ` ${long(200)}\t\n`,
    long(201),
    long(200, "😀"),
    long(201, "😀"),
    "\uFEFFAda\u00A0",
    "a\u2028b",
    "",
    "   ",
    "\u3000",
    "\ud800",
    "Ada\udfff",
    "\ud83d\ude00",
    "\u0085",
    "\u0000",
    "Ada\u0000Lovelace",
    "Ada\tLovelace",
    "\u200b",
    " \u200b\u2060\ufe0f ",
    "\u3164",
    "\u200bAda",
    "\u{E0041}",
    5,
    null,
    ["Ada"],
    ABSENT,
  ],
  email: [
    "ada@example.com",
    "ADA@EXAMPLE.COM",
    "user+tag@sub.example.org",
    "!#$%&'*+/=?^_`{|}~-@c.co",
    "a.b.c@d.museum",
    "a@c.xn--p1ai",
    `${long(64, "l")}@c.co`,
    `${long(65, "l")}@c.co`,
    `a@${long(63, "d")}.co`,
    `a@${long(64, "d")}.co`,
    `a@${long(61, "d")}.${long(61, "d")}.${long(61, "d")}.${long(63, "d")}`,
    `a@${long(61, "d")}.${long(61, "d")}.${long(61, "d")}.${long(62, "d")}.co`,
    `${long(64, "l")}@${long(61, "d")}.${long(61, "d")}.${long(62, "d")}.co`,
    `${long(64, "l")}@${long(61, "d")}.${long(61, "d")}.${long(63, "d")}.co`,
    "a..b@c.co",
    ".a@c.co",
    "a.@c.co",
    "a@c",
    "a@-c.co",
    "a@c-.co",
    "a@c.c",
    "a@c.123",
    "a@c.xn--",
    "a@c.xn---",
    "a@c.XN--p1ai",
    "a b@c.co",
    "a@b@c.co",
    '"a"@c.co',
    "ä@c.co",
    "a@ä.co",
    "\ud800@c.co",
    "",
    5,
    null,
    ABSENT,
  ],
  phone: ["+12", "+123456789012345", "+1", "+1234567890123456", "12", "+12a", "", 5, null, ABSENT],
  address: [
    null,
    {},
    { country: "GB" },
    { country: "gb" },
    { country: "XX" },
    { country: 5 },
    { country: null, line1: null },
    { line1: long(200) },
    { line1: long(201) },
    { line2: long(200, "😀"), city: "", region: "", postal_code: "" },
    { postal_code: long(201, "😀") },
    { city: 5 },
    { line1: "\ud800" },
    { city: "Lon\u0007don" },
    { region: "\u0085" },
    { line2: "\u200b" },
    { zip: "x" },
    [],
    "London",
    ABSENT,
  ],
  metadata: [
    {},
    null,
    { crm_id: "A-1042" },
    { "": "x" },
    { [long(40, "k")]: "v" },
    { [long(41, "k")]: "v" },
    { [long(40, "😀")]: "v" },
    { k: long(500) },
    { k: long(501) },
    { k: 5 },
    { k: null },
    { "\ud800": "v" },
    { k: "\udfff" },
    { k: "a\u0000\n" },
    { [long(40, "\ud800")]: "v" },
    keys(50),
    keys(51),
    [],
    "x",
    ABSENT,
  ],
  id: [ABSENT, 5, "anything", null],
  version: [ABSENT, "x", 7],
  nickname: [ABSENT, ABSENT, ABSENT, "Ada", null],
};

function body(choice: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(choice).filter(([, value]) => value !== ABSENT));
}

function assertAgree(input: unknown, label: string): boolean {
  let accepted = true;
  let reason = "";
  let parsed;
  try {
    parsed = parseCustomerInput(input);
  } catch (error) {
    accepted = false;
    reason = (error as Error).message;
  }
  const errors = schemaErrors("CustomerInput", input);
  assert.equal(
    errors.length === 0,
    accepted,
    `${label}: the validator ${accepted ? "accepts" : `refuses (${reason})`} but the schema ` +
      `${errors.length === 0 ? "accepts" : `refuses: ${errors.join("; ")}`}\n${
        JSON.stringify(input).slice(0, 400)
      }`,
  );
  if (parsed !== undefined) {
    // What the server would store and return must fit the response schema.
    const customer = {
      id: "01JDQ8Z5K3M4N5P6Q7R8S9T0VW",
      ...parsed,
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:00.000Z",
      version: 1,
    };
    assert.deepEqual(schemaErrors("Customer", customer), [], `${label}: stored form`);
  }
  return accepted;
}

const BASE = { name: "Ada Lovelace", email: "ada@example.com" };

Deno.test("schema and validator agree on every edge value of every field, one at a time", () => {
  let accepted = 0;
  let refused = 0;
  for (const [field, values] of Object.entries(FIELDS)) {
    for (const value of values) {
      const ok = assertAgree(
        body({ ...BASE, [field]: value }),
        `${field} = ${String(value).slice(0, 40)}`,
      );
      if (ok) accepted++;
      else refused++;
    }
  }
  // Both sides of the table are exercised, so agreement is not "both accept everything".
  assert.ok(accepted > 40 && refused > 40, `accepted ${accepted}, refused ${refused}`);
});

Deno.test("schema and validator agree on bodies that are not objects or hide keys", () => {
  for (const text of ["null", "[]", '"Ada"', "5", "true", "{}"]) {
    assertAgree(JSON.parse(text), text);
  }
  const sneaky = [
    '{"name":"Ada","email":"ada@example.com","__proto__":{"x":1}}',
    '{"name":"Ada","email":"ada@example.com","metadata":{"__proto__":"x"}}',
    '{"name":"Ada","email":"ada@example.com","address":{"__proto__":null}}',
    '{"name":"Ada","email":"ada@example.com","constructor":"x"}',
  ];
  for (const text of sneaky) assertAgree(JSON.parse(text), text);
});

Deno.test("schema and validator agree on random combinations of edge values", () => {
  const seed = seedFrom("AGREEMENT_SEED");
  const random = seededRandom(seed);
  const fields = Object.entries(FIELDS);
  for (let i = 0; i < 3000; i++) {
    const choice = Object.fromEntries(
      fields.map(([field, values]) => [field, values[Math.floor(random() * values.length)]]),
    );
    assertAgree(body(choice), `AGREEMENT_SEED=${seed} case ${i}`);
  }
});

/** A merge patch may also send `null` to remove a field or a metadata key. */
const PATCH_FIELDS: Variants = {
  ...FIELDS,
  address: [...FIELDS.address, { line1: null, zip: null }, { country: null }],
  metadata: [...FIELDS.metadata, { k: null, [long(41, "k")]: null }, { "\ud800": null }],
};

function assertPatchAgree(patch: Record<string, unknown>, label: string): boolean {
  const violations = mergePatchViolations(patch);
  const errors = schemaErrors("CustomerPatch", patch);
  assert.equal(
    errors.length === 0,
    violations.length === 0,
    `${label}: the validator ${
      violations.length === 0 ? "accepts" : `refuses (${JSON.stringify(violations)})`
    } but the schema ${errors.length === 0 ? "accepts" : `refuses: ${errors.join("; ")}`}\n${
      JSON.stringify(patch).slice(0, 400)
    }`,
  );
  return violations.length === 0;
}

Deno.test("the CustomerPatch schema and the merge patch check agree on every edge value", () => {
  let accepted = 0;
  let refused = 0;
  for (const [field, values] of Object.entries(PATCH_FIELDS)) {
    for (const value of values) {
      const ok = assertPatchAgree(body({ [field]: value }), `${field} = ${String(value)}`);
      if (ok) accepted++;
      else refused++;
    }
  }
  assert.ok(accepted > 40 && refused > 40, `accepted ${accepted}, refused ${refused}`);
  const seed = seedFrom("AGREEMENT_SEED");
  const random = seededRandom(seed);
  for (let i = 0; i < 2000; i++) {
    const choice = Object.fromEntries(
      Object.entries(PATCH_FIELDS).filter(() => random() < 0.4)
        .map(([field, values]) => [field, values[Math.floor(random() * values.length)]]),
    );
    assertPatchAgree(body(choice), `AGREEMENT_SEED=${seed} patch ${i}`);
  }
});
