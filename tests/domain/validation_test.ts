import { exampleCustomer } from "../support/customers.ts";
import assert from "node:assert/strict";
import { ValidationError, type Violation } from "../../src/domain/errors.ts";
import { isValidEmail } from "../../src/domain/email_address.ts";
import { mergePatchViolations, parseCustomerInput } from "../../src/domain/validation.ts";

const VALID = { name: "Ada Lovelace", email: "ada@example.com" };

/** A valid body with some fields replaced. */
function withFields(fields: Record<string, unknown>): Record<string, unknown> {
  return { ...VALID, ...fields };
}

/** The violations parseCustomerInput reports for a body; fails when it accepts the body. */
function violationsOf(body: unknown): Violation[] {
  try {
    parseCustomerInput(body);
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected a ValidationError, got ${error}`);
    return error.violations;
  }
  assert.fail(`expected ${JSON.stringify(body)} to be rejected`);
}

function pointersOf(body: unknown): string[] {
  return violationsOf(body).map((violation) => violation.pointer);
}

// --- the body as a whole ---

Deno.test("a body that is not an object is rejected with one violation at pointer ''", () => {
  for (const body of [[], [VALID], "Ada", null, 42, true, undefined]) {
    assert.deepEqual(violationsOf(body), [{ pointer: "", detail: "must be a JSON object" }]);
  }
});

Deno.test("a minimal body gets phone null, address null and metadata {}", () => {
  assert.deepEqual(parseCustomerInput({ name: "Ada Lovelace", email: "ada@example.com" }), {
    name: "Ada Lovelace",
    email: "ada@example.com",
    phone: null,
    address: null,
    metadata: {},
  });
});

Deno.test("the contract's example customer is accepted and returned without read-only fields", () => {
  const body = exampleCustomer();
  assert.deepEqual(parseCustomerInput(body), {
    name: "Ada Lovelace",
    email: "ada@example.com",
    phone: "+442079460958",
    address: {
      line1: "12 St James's Square",
      line2: null,
      city: "London",
      region: null,
      postal_code: "SW1Y 4JH",
      country: "GB",
    },
    metadata: { crm_id: "A-1042" },
  });
});

Deno.test("explicit nulls for phone, address and metadata become null, null and {}", () => {
  assert.deepEqual(parseCustomerInput(withFields({ phone: null, address: null, metadata: null })), {
    ...VALID,
    phone: null,
    address: null,
    metadata: {},
  });
});

Deno.test("read-only fields id, created_at, updated_at and version are ignored, even when malformed", () => {
  const input = parseCustomerInput(
    withFields({ id: 7, created_at: "yesterday", updated_at: false, version: "x" }),
  );
  assert.deepEqual(input, { ...VALID, phone: null, address: null, metadata: {} });
  assert.deepEqual(Object.keys(input), ["name", "email", "phone", "address", "metadata"]);
});

Deno.test("an unknown top-level field is rejected with pointer /foo", () => {
  assert.deepEqual(violationsOf(withFields({ foo: 1 })), [
    { pointer: "/foo", detail: "is not a known field" },
  ]);
});

Deno.test("unknown field names are escaped as JSON pointers: ~ as ~0 and / as ~1 (RFC 6901)", () => {
  assert.deepEqual(pointersOf(withFields({ "a/b": 1 })), ["/a~1b"]);
  assert.deepEqual(pointersOf(withFields({ "m~n": 1 })), ["/m~0n"]);
  // "~" is escaped before "/", so a literal "~1" is not confused with an escaped "/".
  assert.deepEqual(pointersOf(withFields({ "~1": 1 })), ["/~01"]);
  assert.deepEqual(pointersOf(withFields({ "/~": 1 })), ["/~1~0"]);
  assert.deepEqual(pointersOf(withFields({ "": 1 })), ["/"]);
});

Deno.test("a top-level __proto__ key is an unknown field and does not pollute Object.prototype", () => {
  const body = JSON.parse(
    '{"name":"Ada","email":"ada@example.com","__proto__":{"polluted":"yes"}}',
  );
  assert.deepEqual(violationsOf(body), [{ pointer: "/__proto__", detail: "is not a known field" }]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("every problem of a body is reported at once, unknown fields first, then field order", () => {
  const body = {
    extra: true,
    name: "   ",
    email: "not-an-email",
    phone: "+1",
    address: { country: "gb", foo: 1, city: "x".repeat(201) },
    metadata: { k: 1, ["x".repeat(41)]: "v" },
    "a/b": null,
  };
  assert.deepEqual(pointersOf(body), [
    "/extra",
    "/a~1b",
    "/name",
    "/email",
    "/phone",
    "/address/foo",
    "/address/city",
    "/address/country",
    "/metadata/k",
    `/metadata/${"x".repeat(41)}`,
  ]);
});

Deno.test("a body missing both required fields reports /name and /email", () => {
  assert.deepEqual(violationsOf({}), [
    { pointer: "/name", detail: "is required" },
    { pointer: "/email", detail: "is required" },
  ]);
});

// --- name ---

Deno.test("a missing or null name is rejected with pointer /name as required", () => {
  assert.deepEqual(violationsOf({ email: "ada@example.com" }), [
    { pointer: "/name", detail: "is required" },
  ]);
  assert.deepEqual(violationsOf(withFields({ name: null })), [
    { pointer: "/name", detail: "is required" },
  ]);
});

Deno.test("a name that is not a string is rejected with pointer /name", () => {
  for (const name of [42, true, ["Ada"], { first: "Ada" }]) {
    assert.deepEqual(violationsOf(withFields({ name })), [
      { pointer: "/name", detail: "must be a string" },
    ]);
  }
});

Deno.test("a name is trimmed of surrounding whitespace", () => {
  assert.equal(
    parseCustomerInput(withFields({ name: " \t Ada Lovelace \n" })).name,
    "Ada Lovelace",
  );
});

Deno.test("an empty or whitespace-only name is rejected with pointer /name", () => {
  for (const name of ["", "   ", "\n\t"]) {
    assert.deepEqual(violationsOf(withFields({ name })), [
      { pointer: "/name", detail: "must be 1 to 200 characters after trimming" },
    ]);
  }
});

Deno.test("a name of 1 and of 200 characters is accepted", () => {
  assert.equal(parseCustomerInput(withFields({ name: "A" })).name, "A");
  assert.equal(parseCustomerInput(withFields({ name: "a".repeat(200) })).name, "a".repeat(200));
});

Deno.test("a name of 201 characters is rejected with pointer /name", () => {
  assert.deepEqual(violationsOf(withFields({ name: "a".repeat(201) })), [
    { pointer: "/name", detail: "must be 1 to 200 characters after trimming" },
  ]);
});

Deno.test("name length counts code points: 200 emoji are accepted, 201 are rejected", () => {
  const emoji200 = "😀".repeat(200);
  assert.equal(emoji200.length, 400);
  assert.equal(parseCustomerInput(withFields({ name: emoji200 })).name, emoji200);
  assert.deepEqual(pointersOf(withFields({ name: "😀".repeat(201) })), ["/name"]);
});

Deno.test("surrounding whitespace does not count towards the 200-character name limit", () => {
  const name = "a".repeat(200);
  assert.equal(parseCustomerInput(withFields({ name: `  ${name}  ` })).name, name);
});

// --- email ---

Deno.test("a missing or null email is rejected with pointer /email as required", () => {
  assert.deepEqual(violationsOf({ name: "Ada" }), [{ pointer: "/email", detail: "is required" }]);
  assert.deepEqual(violationsOf(withFields({ email: null })), [
    { pointer: "/email", detail: "is required" },
  ]);
});

Deno.test("an email that is not a string is rejected with pointer /email", () => {
  for (const email of [42, ["ada@example.com"], { address: "ada@example.com" }]) {
    assert.deepEqual(violationsOf(withFields({ email })), [
      { pointer: "/email", detail: "must be a string" },
    ]);
  }
});

const VALID_EMAILS = [
  "ada@example.com",
  "Ada.Lovelace@Example.COM",
  "user+tag@example.co.uk",
  "o'brien@example.ie",
  "first_last-1@sub.example.org",
  "a@b.io",
  "a@xn--bcher-kva.example",
  "a@example.xn--p1ai",
  "x@1-2.example",
];

const INVALID_EMAILS: [string, string][] = [
  ["no at sign", "ada.example.com"],
  ["empty local part", "@example.com"],
  ["empty domain", "ada@"],
  ["two at signs", "ada@lovelace@example.com"],
  ["space in the local part", "ada lovelace@example.com"],
  ["leading space", " ada@example.com"],
  ["trailing space", "ada@example.com "],
  ["space in the domain", "ada@exa mple.com"],
  ["double dot in the local part", "ada..lovelace@example.com"],
  ["leading dot in the local part", ".ada@example.com"],
  ["trailing dot in the local part", "ada.@example.com"],
  ["double dot in the domain", "ada@example..com"],
  ["domain without a dot", "ada@localhost"],
  ["trailing dot in the domain", "ada@example.com."],
  ["leading dot in the domain", "ada@.example.com"],
  ["unicode local part", "ädä@example.com"],
  ["unicode domain", "ada@bücher.example"],
  ["label starting with a hyphen", "ada@-example.com"],
  ["label ending with a hyphen", "ada@example-.com"],
  ["one-letter top-level domain", "ada@example.c"],
  ["numeric top-level domain", "ada@example.123"],
  ["IP literal", "ada@[127.0.0.1]"],
  ["quoted local part", '"ada"@example.com'],
  ["empty string", ""],
];

Deno.test("isValidEmail accepts ordinary addresses", () => {
  for (const email of VALID_EMAILS) assert.equal(isValidEmail(email), true, email);
});

Deno.test("isValidEmail rejects malformed addresses", () => {
  for (const [why, email] of INVALID_EMAILS) assert.equal(isValidEmail(email), false, why);
});

Deno.test("a valid email is returned exactly as sent, case preserved", () => {
  for (const email of VALID_EMAILS) {
    assert.equal(parseCustomerInput(withFields({ email })).email, email);
  }
});

Deno.test("an invalid email is rejected with pointer /email", () => {
  for (const [why, email] of INVALID_EMAILS) {
    assert.deepEqual(
      violationsOf(withFields({ email })),
      [{ pointer: "/email", detail: "must be a valid email address" }],
      why,
    );
  }
});

/** An email address of exactly the given length, with a 64-character local part. */
function emailOfLength(length: number): string {
  const labels: string[] = [];
  let rest = length - 64 - "@".length - ".com".length;
  while (rest > 63) {
    labels.push("d".repeat(62));
    rest -= 63; // the label and its dot
  }
  labels.push("d".repeat(rest));
  const email = `${"l".repeat(64)}@${labels.join(".")}.com`;
  assert.equal(email.length, length);
  return email;
}

Deno.test("an email of 254 characters is accepted", () => {
  const email = emailOfLength(254);
  assert.equal(isValidEmail(email), true);
  assert.equal(parseCustomerInput(withFields({ email })).email, email);
});

Deno.test("an email of 255 characters is rejected with pointer /email as too long", () => {
  const email = emailOfLength(255);
  assert.equal(isValidEmail(email), false);
  assert.deepEqual(violationsOf(withFields({ email })), [
    { pointer: "/email", detail: "must be at most 254 characters" },
  ]);
});

Deno.test("an email local part of 64 characters is accepted, of 65 rejected", () => {
  assert.equal(isValidEmail(`${"l".repeat(64)}@example.com`), true);
  assert.equal(isValidEmail(`${"l".repeat(65)}@example.com`), false);
});

Deno.test("a domain label of 63 characters is accepted, of 64 rejected", () => {
  assert.equal(isValidEmail(`ada@${"d".repeat(63)}.com`), true);
  assert.equal(isValidEmail(`ada@${"d".repeat(64)}.com`), false);
});

// --- phone ---

Deno.test("a phone in E.164 form is accepted unchanged", () => {
  for (const phone of ["+442079460958", "+12", `+${"1".repeat(15)}`]) {
    assert.equal(parseCustomerInput(withFields({ phone })).phone, phone);
  }
});

Deno.test("a phone that is not E.164 is rejected with pointer /phone", () => {
  const bad = [
    "+1",
    "+",
    `+${"1".repeat(16)}`,
    "442079460958",
    "+44 20 7946 0958",
    "+44-20-7946-0958",
    "+44abc",
    "+44207946095８",
    "++442079460958",
    "",
    442079460958,
    ["+442079460958"],
  ];
  for (const phone of bad) {
    assert.deepEqual(
      violationsOf(withFields({ phone })),
      [{ pointer: "/phone", detail: "must be null or an E.164 number: + then 2 to 15 digits" }],
      String(phone),
    );
  }
});

// --- address ---

Deno.test("an address with some fields gets null for every missing field", () => {
  assert.deepEqual(parseCustomerInput(withFields({ address: { city: "London" } })).address, {
    line1: null,
    line2: null,
    city: "London",
    region: null,
    postal_code: null,
    country: null,
  });
  assert.deepEqual(parseCustomerInput(withFields({ address: {} })).address, {
    line1: null,
    line2: null,
    city: null,
    region: null,
    postal_code: null,
    country: null,
  });
});

Deno.test("an address that is neither null nor an object is rejected with pointer /address", () => {
  for (const address of ["London", ["London"], 42, true]) {
    assert.deepEqual(violationsOf(withFields({ address })), [
      { pointer: "/address", detail: "must be null or an object" },
    ]);
  }
});

Deno.test("each address text field of 200 characters is accepted, of 201 rejected", () => {
  for (const field of ["line1", "line2", "city", "region", "postal_code"]) {
    const ok = parseCustomerInput(withFields({ address: { [field]: "é".repeat(200) } }));
    assert.equal((ok.address as unknown as Record<string, string>)[field], "é".repeat(200));
    assert.deepEqual(violationsOf(withFields({ address: { [field]: "é".repeat(201) } })), [
      { pointer: `/address/${field}`, detail: "must be at most 200 characters" },
    ]);
  }
});

Deno.test("address text fields count code points: 200 emoji are accepted", () => {
  const city = "🏙".repeat(200);
  assert.equal(parseCustomerInput(withFields({ address: { city } })).address?.city, city);
});

Deno.test("an address field that is not a string is rejected with its own pointer", () => {
  assert.deepEqual(violationsOf(withFields({ address: { city: 42, country: ["GB"] } })), [
    { pointer: "/address/city", detail: "must be null or a string" },
    { pointer: "/address/country", detail: "must be null or a string" },
  ]);
});

Deno.test("an upper-case ISO 3166-1 alpha-2 country is accepted", () => {
  for (const country of ["GB", "US", "DE", "JP", "ZW", "AD"]) {
    assert.equal(
      parseCustomerInput(withFields({ address: { country } })).address?.country,
      country,
    );
  }
});

Deno.test("a country that is lower case, unassigned or not alpha-2 is rejected", () => {
  for (const country of ["gb", "Gb", "XX", "UK", "GBR", "G", "", " GB"]) {
    assert.deepEqual(
      violationsOf(withFields({ address: { country } })),
      [{ pointer: "/address/country", detail: "must be an ISO 3166-1 alpha-2 code in upper case" }],
      country,
    );
  }
});

Deno.test("an unknown address key is rejected with pointer /address/foo", () => {
  assert.deepEqual(violationsOf(withFields({ address: { city: "London", foo: "bar" } })), [
    { pointer: "/address/foo", detail: "is not a known field" },
  ]);
});

Deno.test("unknown address keys are escaped as JSON pointers", () => {
  assert.deepEqual(pointersOf(withFields({ address: { "a/b~c": 1 } })), ["/address/a~1b~0c"]);
});

// --- metadata ---

Deno.test("metadata that is not an object is rejected with pointer /metadata", () => {
  for (const metadata of [["a"], "a=b", 42, true]) {
    assert.deepEqual(violationsOf(withFields({ metadata })), [
      { pointer: "/metadata", detail: "must be an object of string values" },
    ]);
  }
});

function metadataWithKeys(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, `value${i}`]));
}

Deno.test("metadata with 50 keys is accepted and returned unchanged", () => {
  const metadata = metadataWithKeys(50);
  assert.deepEqual(parseCustomerInput(withFields({ metadata })).metadata, metadata);
});

Deno.test("metadata with 51 keys is rejected once with pointer /metadata", () => {
  assert.deepEqual(violationsOf(withFields({ metadata: metadataWithKeys(51) })), [
    { pointer: "/metadata", detail: "must have at most 50 keys" },
  ]);
});

Deno.test("a metadata key of 1 and 40 characters is accepted", () => {
  const metadata = { k: "v", ["k".repeat(40)]: "v", ["🔑".repeat(40)]: "v" };
  assert.deepEqual(parseCustomerInput(withFields({ metadata })).metadata, metadata);
});

Deno.test("a metadata key of 41 characters is rejected with the key's pointer", () => {
  const key = "k".repeat(41);
  assert.deepEqual(violationsOf(withFields({ metadata: { [key]: "v" } })), [
    { pointer: `/metadata/${key}`, detail: "key must be 1 to 40 characters" },
  ]);
});

Deno.test("an empty metadata key is rejected with pointer /metadata/", () => {
  assert.deepEqual(violationsOf(withFields({ metadata: { "": "v" } })), [
    { pointer: "/metadata/", detail: "key must be 1 to 40 characters" },
  ]);
});

Deno.test("a metadata value of 500 characters is accepted, of 501 rejected", () => {
  const ok = parseCustomerInput(withFields({ metadata: { note: "v".repeat(500), empty: "" } }));
  assert.deepEqual(ok.metadata, { note: "v".repeat(500), empty: "" });
  assert.deepEqual(violationsOf(withFields({ metadata: { note: "v".repeat(501) } })), [
    { pointer: "/metadata/note", detail: "must be at most 500 characters" },
  ]);
});

Deno.test("metadata values count code points: 500 emoji are accepted, 501 rejected", () => {
  const note = "💬".repeat(500);
  assert.deepEqual(parseCustomerInput(withFields({ metadata: { note } })).metadata, { note });
  assert.deepEqual(pointersOf(withFields({ metadata: { note: "💬".repeat(501) } })), [
    "/metadata/note",
  ]);
});

Deno.test("a metadata value that is not a string is rejected with the key's pointer", () => {
  for (const value of [42, null, true, { nested: "x" }, ["x"]]) {
    assert.deepEqual(violationsOf(withFields({ metadata: { crm_id: value } })), [
      { pointer: "/metadata/crm_id", detail: "must be a string" },
    ]);
  }
});

Deno.test("metadata keys containing / and ~ are escaped in pointers", () => {
  assert.deepEqual(pointersOf(withFields({ metadata: { "a/b~c": 1 } })), ["/metadata/a~1b~0c"]);
});

Deno.test("a metadata key __proto__ stays plain data and does not change any prototype", () => {
  const body = JSON.parse('{"name":"Ada","email":"ada@example.com","metadata":{"__proto__":"x"}}');
  const { metadata } = parseCustomerInput(body);
  assert.equal(Object.getPrototypeOf(metadata), Object.prototype);
  assert.equal(Object.hasOwn(metadata, "__proto__"), true);
  assert.deepEqual(Object.keys(metadata), ["__proto__"]);
  assert.equal(JSON.stringify(metadata), '{"__proto__":"x"}');
});

Deno.test("a metadata __proto__ object value is rejected and pollutes nothing", () => {
  const body = JSON.parse(
    '{"name":"Ada","email":"ada@example.com","metadata":{"__proto__":{"polluted":"yes"}}}',
  );
  assert.deepEqual(violationsOf(body), [
    { pointer: "/metadata/__proto__", detail: "must be a string" },
  ]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

// --- lone surrogates, control and invisible characters ---

const LONE = "must not contain a lone surrogate (an unpaired \\ud800-\\udfff escape)";
const CONTROL = "must not contain control characters (U+0000-U+001F, U+007F-U+009F)";

Deno.test("a lone surrogate in any string field is refused at that field's pointer", () => {
  const cases: [Record<string, unknown>, Violation][] = [
    [{ name: "\ud800" }, { pointer: "/name", detail: LONE }],
    [{ name: "Ada \udfff Lovelace" }, { pointer: "/name", detail: LONE }],
    [{ email: "\ud800@example.com" }, {
      pointer: "/email",
      detail: "must be a valid email address",
    }],
    [{ phone: "+44\ud800" }, {
      pointer: "/phone",
      detail: "must be null or an E.164 number: + then 2 to 15 digits",
    }],
    [{ address: { line1: "\ud800" } }, { pointer: "/address/line1", detail: LONE }],
    [{ address: { postal_code: "SW1\udbff" } }, { pointer: "/address/postal_code", detail: LONE }],
    [{ address: { country: "G\ud800" } }, {
      pointer: "/address/country",
      detail: "must be an ISO 3166-1 alpha-2 code in upper case",
    }],
    [{ metadata: { k: "\ud800" } }, { pointer: "/metadata/k", detail: LONE }],
    [{ metadata: { "\ud800": "v" } }, { pointer: "/metadata/\ud800", detail: `key ${LONE}` }],
  ];
  for (const [fields, violation] of cases) {
    assert.deepEqual(violationsOf(withFields(fields)), [violation], JSON.stringify(fields));
  }
});

Deno.test("a well-formed surrogate pair (an emoji) is accepted in every free-text field", () => {
  const input = parseCustomerInput(withFields({
    name: "Ada 😀",
    address: { line1: "😀" },
    metadata: { "😀": "😀" },
  }));
  assert.equal(input.name, "Ada 😀");
  assert.equal(input.address?.line1, "😀");
  assert.deepEqual(input.metadata, { "😀": "😀" });
});

Deno.test("a name made only of control, format or white-space characters is refused", () => {
  for (const name of ["\u0085", "\u0000", "\u007f", " \u009f "]) {
    assert.deepEqual(violationsOf(withFields({ name })), [{ pointer: "/name", detail: CONTROL }]);
  }
  for (const name of ["\u200b", "\u2060\ufe0f", " \u200d\u00ad ", "\u3164", "\ufeff\u200b"]) {
    assert.deepEqual(violationsOf(withFields({ name })), [{
      pointer: "/name",
      detail: "must contain a visible character, not only spaces or format characters",
    }], JSON.stringify(name));
  }
});

Deno.test("a control character inside a name is refused; white space around it is trimmed", () => {
  for (const name of ["Ada\u0000Lovelace", "Ada\tLovelace", "Ada\nLovelace", "Ada\u0085"]) {
    assert.deepEqual(violationsOf(withFields({ name })), [{ pointer: "/name", detail: CONTROL }]);
  }
  assert.equal(
    parseCustomerInput(withFields({ name: "\t Ada\u200bLovelace \r\n" })).name,
    "Ada\u200bLovelace",
  );
});

Deno.test("a control character anywhere in an address field is refused, metadata keeps them", () => {
  for (const line1 of ["\u0000", "12 Main St\n", "\tx", "a\u0085b"]) {
    assert.deepEqual(violationsOf(withFields({ address: { line1 } })), [
      { pointer: "/address/line1", detail: CONTROL },
    ]);
  }
  const input = parseCustomerInput(withFields({ metadata: { note: "line 1\nline 2\t\u0000" } }));
  assert.equal(input.metadata.note, "line 1\nline 2\t\u0000");
});

// --- merge patches ---

Deno.test("a merge patch's own fields follow the same rules, null removing optional ones", () => {
  assert.deepEqual(mergePatchViolations({}), []);
  assert.deepEqual(
    mergePatchViolations({ phone: null, address: { line1: null }, metadata: { k: null } }),
    [],
  );
  assert.deepEqual(mergePatchViolations({ name: null, email: null }), [
    { pointer: "/name", detail: "is required" },
    { pointer: "/email", detail: "is required" },
  ]);
  assert.deepEqual(
    mergePatchViolations({
      nickname: null,
      name: "\u200b",
      address: { zip: null, country: "gb" },
      metadata: { ["k".repeat(41)]: null, v: 5, w: "\ud800" },
    }),
    [
      { pointer: "/nickname", detail: "is not a known field" },
      {
        pointer: "/name",
        detail: "must contain a visible character, not only spaces or format characters",
      },
      { pointer: "/address/zip", detail: "is not a known field" },
      { pointer: "/address/country", detail: "must be an ISO 3166-1 alpha-2 code in upper case" },
      { pointer: `/metadata/${"k".repeat(41)}`, detail: "key must be 1 to 40 characters" },
      { pointer: "/metadata/v", detail: "must be a string or null" },
      { pointer: "/metadata/w", detail: LONE },
    ],
  );
});
