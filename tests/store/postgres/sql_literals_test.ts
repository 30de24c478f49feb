/** Values written into SQL as literals come back from PostgreSQL exactly as they were. */
import assert from "node:assert/strict";
import { inlineParameters } from "../../../src/store/postgres/sql_literals.ts";
import { createTestSchema } from "../../support/postgres.ts";

const AWKWARD = [
  "it's",
  "back\\slash \\' and ''",
  'a "quoted" $1 and $2 inside',
  "ünïcödé ✓ 𝄞",
  "line\nbreak\ttab",
  "",
  '{"name":"O\'Brien","path":"C:\\\\temp"}',
];

Deno.test("inlined text, integers, nulls and arrays round-trip through PostgreSQL unchanged", async () => {
  const schema = await createTestSchema();
  try {
    const sql = inlineParameters(
      `SELECT $1::text[] AS texts, $2::bigint[] AS numbers, $3::text[] AS empty, $4 AS one,
        $5::text AS nothing, $6::text[] AS with_null`,
      [AWKWARD, [1, 9007199254740991], [], 42, null, ["x", null]],
    );
    const [row] = await schema.query(sql);
    assert.deepEqual(row.texts, AWKWARD);
    assert.deepEqual(row.numbers, ["1", "9007199254740991"]);
    assert.deepEqual(row.empty, []);
    assert.equal(row.one, 42);
    assert.equal(row.nothing, null);
    assert.deepEqual(row.with_null, ["x", null]);
  } finally {
    await schema.drop();
  }
});

Deno.test("a parameter without a value, or a number that is not an integer, is refused", () => {
  assert.throws(() => inlineParameters("SELECT $2", [1]), /No value for parameter "\$2"/);
  assert.throws(() => inlineParameters("SELECT $1", [1.5]), /Not an integer parameter/);
});
