/** Contract §3 and §5: field rules → 422 with JSON pointers; email uniqueness → 409. */
import assert from "node:assert/strict";
import {
  ApiClient,
  assertProblem,
  assertValidationPointers,
  fullCustomer,
  newCustomer,
} from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";
const EMAIL_254 = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`;
const EMAIL_255 = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`;
const manyKeys = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));

/** [what is wrong, the field overrides, the pointers that must be reported]. */
const INVALID: [string, Record<string, unknown>, string[]][] = [
  ["name missing", { name: undefined }, ["/name"]],
  ["name empty", { name: "" }, ["/name"]],
  ["name blank after trimming", { name: "   \t " }, ["/name"]],
  ["name of 201 characters", { name: "n".repeat(201) }, ["/name"]],
  ["name not a string", { name: 42 }, ["/name"]],
  ["name null", { name: null }, ["/name"]],
  ["email missing", { email: undefined }, ["/email"]],
  ["email without @", { email: "not-an-email" }, ["/email"]],
  ["email without domain", { email: "someone@" }, ["/email"]],
  ["email without local part", { email: "@example.com" }, ["/email"]],
  ["email with spaces", { email: "some one@example.com" }, ["/email"]],
  ["email of 255 characters", { email: EMAIL_255 }, ["/email"]],
  ["email not a string", { email: ["a@example.com"] }, ["/email"]],
  ["phone without +", { phone: "442079460958" }, ["/phone"]],
  ["phone with one digit", { phone: "+1" }, ["/phone"]],
  ["phone with 16 digits", { phone: "+1234567890123456" }, ["/phone"]],
  ["phone with spaces", { phone: "+44 20 7946 0958" }, ["/phone"]],
  ["phone a number", { phone: 442079460958 }, ["/phone"]],
  ["address a string", { address: "12 St James's Square" }, ["/address"]],
  ["address an array", { address: ["x"] }, ["/address"]],
  ["country lower case", { address: { country: "gb" } }, ["/address/country"]],
  ["country not ISO 3166-1", { address: { country: "XX" } }, ["/address/country"]],
  ["country alpha-3", { address: { country: "GBR" } }, ["/address/country"]],
  ["address line of 201 characters", { address: { line1: "l".repeat(201) } }, ["/address/line1"]],
  ["postal_code of 201 characters", { address: { postal_code: "p".repeat(201) } }, [
    "/address/postal_code",
  ]],
  ["city not a string", { address: { city: 5 } }, ["/address/city"]],
  ["unknown address field", { address: { zip: "12345" } }, ["/address/zip"]],
  ["metadata an array", { metadata: ["a"] }, ["/metadata"]],
  ["metadata a string", { metadata: "a=b" }, ["/metadata"]],
  ["metadata value not a string", { metadata: { a: 1 } }, ["/metadata/a"]],
  ["metadata value of 501 characters", { metadata: { a: "v".repeat(501) } }, ["/metadata/a"]],
  ["metadata with 51 keys", { metadata: manyKeys(51) }, ["/metadata"]],
  ["metadata key of 41 characters", { metadata: { ["k".repeat(41)]: "v" } }, [
    `/metadata/${"k".repeat(41)}`,
  ]],
  ["metadata key empty", { metadata: { "": "v" } }, ["/metadata/"]],
  ["unknown top-level field", { nickname: "Ada" }, ["/nickname"]],
  // JSON.stringify escapes a lone surrogate, so the body carries the text \ud800.
  ["name a lone surrogate", { name: "\ud800" }, ["/name"]],
  ["name with a lone surrogate inside", { name: "Ada \udfff" }, ["/name"]],
  ["name only NEL (a C1 control)", { name: "\u0085" }, ["/name"]],
  ["name only NUL", { name: "\u0000" }, ["/name"]],
  ["name only a zero-width space", { name: "\u200b" }, ["/name"]],
  ["name only format characters and spaces", { name: " \u2060\u200d " }, ["/name"]],
  ["name with a control inside", { name: "Ada\u0000Lovelace" }, ["/name"]],
  ["email with a lone surrogate", { email: "\ud800@example.com" }, ["/email"]],
  ["phone with a lone surrogate", { phone: "+44\ud800" }, ["/phone"]],
  ["address line a lone surrogate", { address: { line1: "\ud800" } }, ["/address/line1"]],
  ["city with a control", { address: { city: "Lon\u0007don" } }, ["/address/city"]],
  ["region with a line break", { address: { region: "a\nb" } }, ["/address/region"]],
  ["metadata value a lone surrogate", { metadata: { a: "\udfff" } }, ["/metadata/a"]],
  ["metadata key a lone surrogate", { metadata: { "\ud800": "v" } }, ["/metadata/\ud800"]],
];

const VALID: [string, Record<string, unknown>][] = [
  ["name of 200 characters", { name: "n".repeat(200) }],
  ["name with non-ASCII letters", { name: "Zoë Ærøskøbing 李小龍" }],
  ["email of 254 characters", { email: EMAIL_254 }],
  ["phone with 2 digits", { phone: "+12" }],
  ["phone with 15 digits", { phone: "+123456789012345" }],
  ["phone and address null", { phone: null, address: null }],
  ["address with null lines", { address: { line1: "1 Main St", line2: null, country: "GB" } }],
  ["address empty object", { address: {} }],
  ["address lines of 200 characters", {
    address: { line1: "l".repeat(200), city: "c".repeat(200) },
  }],
  ["metadata with 50 keys", { metadata: manyKeys(50) }],
  ["metadata key of 40 and value of 500", { metadata: { ["k".repeat(40)]: "v".repeat(500) } }],
  ["metadata value empty", { metadata: { a: "" } }],
  ["name with an emoji and a zero-width joiner", { name: "Ada 👩\u200d💻" }],
  ["name trimmed of tab and line breaks", { name: "\tAda\r\n" }],
  ["metadata value with a line break", { metadata: { note: "a\nb" } }],
];

Deno.test("validation and uniqueness", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const existing = await api.create(fullCustomer());

    await t.step("POST breaking one field rule answers 422 naming that pointer", async () => {
      const before = (await api.get("/api/customers?limit=1000")).body.data.length;
      for (const [why, overrides, pointers] of INVALID) {
        const res = await api.post("/api/customers", { json: newCustomer(overrides) });
        try {
          assertValidationPointers(res, pointers);
        } catch (error) {
          throw new Error(`${why}: ${(error as Error).message}`);
        }
      }
      const after = (await api.get("/api/customers?limit=1000")).body.data.length;
      assert.equal(after, before, "a refused POST stores nothing");
    });

    await t.step("POST at the edges of every rule answers 201", async () => {
      for (const [why, overrides] of VALID) {
        const res = await api.post("/api/customers", { json: newCustomer(overrides) });
        assert.equal(res.status, 201, `${why}: ${res.text}`);
      }
    });

    await t.step("PUT breaking a field rule answers 422 and changes nothing", async () => {
      for (const [why, overrides, pointers] of INVALID) {
        const res = await api.put(`/api/customers/${existing.id}`, {
          json: newCustomer(overrides),
        });
        try {
          assertValidationPointers(res, pointers);
        } catch (error) {
          throw new Error(`${why}: ${(error as Error).message}`);
        }
      }
      assert.deepEqual((await api.get(`/api/customers/${existing.id}`)).body, existing);
    });

    await t.step(
      "PATCH whose fields or result break a rule answers 422, changing nothing",
      async () => {
        const patches: [Record<string, unknown>, string[]][] = [
          [{ name: null }, ["/name"]],
          [{ email: null }, ["/email"]],
          [{ email: "nope" }, ["/email"]],
          [{ phone: "12" }, ["/phone"]],
          [{ address: { country: "gb" } }, ["/address/country"]],
          [{ metadata: { x: 7 } }, ["/metadata/x"]],
          [{ nickname: "Ada" }, ["/nickname"]],
          [{ nickname: null }, ["/nickname"]],
          [{ address: { zip: null } }, ["/address/zip"]],
          [{ name: "\ud800" }, ["/name"]],
          [{ name: "\u200b" }, ["/name"]],
          [{ name: "\u0085" }, ["/name"]],
          [{ address: { line2: "\udc00" } }, ["/address/line2"]],
          [{ metadata: { "\ud800": null } }, ["/metadata/\ud800"]],
          [{ metadata: { k: "\ud800" } }, ["/metadata/k"]],
        ];
        for (const [patch, pointers] of patches) {
          const res = await api.patch(`/api/customers/${existing.id}`, {
            json: patch,
            contentType: MERGE_PATCH,
          });
          try {
            assertValidationPointers(res, pointers);
          } catch (error) {
            throw new Error(`${JSON.stringify(patch)}: ${(error as Error).message}`);
          }
        }
        assert.deepEqual((await api.get(`/api/customers/${existing.id}`)).body, existing);
      },
    );

    await t.step("a body that is JSON but not an object answers 422", async () => {
      for (const body of ["[]", '"a string"', "42", "true", "null", "[{}]"]) {
        const post = await api.post("/api/customers", { body, contentType: "application/json" });
        assertProblem(post, 422);
        const put = await api.put(`/api/customers/${existing.id}`, {
          body,
          contentType: "application/json",
        });
        assertProblem(put, 422);
      }
    });

    await t.step("every problem of a body is reported at once, each with its pointer", async () => {
      const res = await api.post("/api/customers", {
        json: {
          name: "",
          email: "nope",
          phone: "1",
          address: { country: "gb", line1: 3 },
          metadata: { a: 1 },
          nickname: "x",
        },
      });
      assertValidationPointers(res, [
        "/name",
        "/email",
        "/phone",
        "/address/country",
        "/address/line1",
        "/metadata/a",
        "/nickname",
      ]);
    });

    await t.step("POST with an email in use, in any case, answers 409", async () => {
      for (const email of [existing.email, existing.email.toUpperCase()]) {
        const res = await api.post("/api/customers", { json: newCustomer({ email }) });
        assertProblem(res, 409);
      }
    });

    await t.step(
      "PUT or PATCH to another customer's email answers 409 and changes nothing",
      async () => {
        const other = await api.create(newCustomer());
        const put = await api.put(`/api/customers/${other.id}`, {
          json: newCustomer({ email: existing.email.toUpperCase() }),
        });
        assertProblem(put, 409);
        const patch = await api.patch(`/api/customers/${other.id}`, {
          json: { email: existing.email },
          contentType: MERGE_PATCH,
        });
        assertProblem(patch, 409);
        assert.deepEqual((await api.get(`/api/customers/${other.id}`)).body, other);
      },
    );
  } finally {
    await server.dispose();
  }
});
