/** The group commit's array parameters read back in PostgreSQL exactly as they were written. */
import assert from "node:assert/strict";
import { intArray, lines, textArray } from "../../../src/store/postgres/array_literal.ts";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { TEST_DATABASE_URL } from "../../support/postgres.ts";

const AWKWARD = [
  "01JDQ8Z5K3M4N5P6Q7R8S9ABCD",
  "2025-01-01T00:00:00.000Z",
  "",
  "null",
  "NULL",
  "NuLl",
  '{"name":"Kundin \\"K\\" Jürgens","metadata":{"a,b":"{x}"}}',
  "back\\slash",
  "a b\tc",
  "comma,brace{}",
  "zoë@example.com",
  "line\nbreak",
  "😀",
  null,
];

Deno.test("text and int arrays written here read back element for element, nulls and awkward text included", async () => {
  const pool = createPool(TEST_DATABASE_URL, 1, () => {});
  try {
    const { rows: [row] } = await pool.query<{ texts: (string | null)[]; ints: number[] }>(
      "SELECT $1::text[] AS texts, $2::int[] AS ints",
      [textArray(AWKWARD), intArray([1, -2, 30])],
    );
    assert.deepEqual(row.texts, AWKWARD);
    assert.deepEqual(row.ints, [1, -2, 30]);
    const { rows: [empty] } = await pool.query<{ texts: string[]; ints: number[] }>(
      "SELECT $1::text[] AS texts, $2::int[] AS ints",
      [textArray([]), intArray([])],
    );
    assert.deepEqual([empty.texts, empty.ints], [[], []]);
  } finally {
    await pool.end();
  }
});

Deno.test("data as lines reads back with its nulls, and what lines cannot carry is refused", async () => {
  const pool = createPool(TEST_DATABASE_URL, 1, () => {});
  try {
    const data = ['{"a":"b\\nc"}', null, '{"x":1}', null];
    for (const values of [data, [null, null], ['{"only":true}'], [null, '{"last":1}']]) {
      const { rows: [row] } = await pool.query<{ data: (string | null)[] }>(
        "SELECT string_to_array($1, E'\\n', '') AS data",
        [lines(values)],
      );
      assert.deepEqual(row.data, values);
    }
  } finally {
    await pool.end();
  }
  assert.equal(lines([null]), undefined, "one null alone would read back as no element");
  assert.equal(lines(["a", ""]), undefined);
  assert.equal(lines(["a\nb"]), undefined);
});
