import assert from "node:assert/strict";
import { BadRequestError } from "../../src/http/errors.ts";
import {
  DEFAULT_LIMIT,
  encodeCursor,
  MAX_LIMIT,
  parseListQuery,
} from "../../src/customers/list_query.ts";

const ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";

function parse(query: string) {
  return parseListQuery(new URLSearchParams(query));
}

Deno.test("an empty query lists the first page of the default size, unfiltered", () => {
  assert.equal(DEFAULT_LIMIT, 100);
  assert.deepEqual(parse(""), { limit: 100 });
});

Deno.test("limit accepts the bounds 1 and 1000", () => {
  assert.equal(MAX_LIMIT, 1000);
  assert.deepEqual(parse("limit=1"), { limit: 1 });
  assert.deepEqual(parse("limit=1000"), { limit: 1000 });
  assert.deepEqual(parse("limit=37"), { limit: 37 });
});

Deno.test("limit outside 1 to 1000 or not an integer is a BadRequestError quoting it", () => {
  for (const limit of ["0", "1001", "9999", "abc", "-1", "1.5", "1e2", "", " 5", "10000"]) {
    assert.throws(
      () => parse(`limit=${encodeURIComponent(limit)}`),
      new BadRequestError(`limit "${limit}" must be an integer from 1 to 1000`),
    );
  }
});

Deno.test("an unknown query parameter is refused, naming it and the known ones", () => {
  assert.throws(
    () => parse("limt=5"),
    new BadRequestError('Unknown query parameter "limt"; use limit, cursor, email or q'),
  );
});

Deno.test("a repeated query parameter is refused, naming it", () => {
  assert.throws(
    () => parse("limit=5&limit=6"),
    new BadRequestError('Query parameter "limit" is given twice'),
  );
  assert.throws(
    () => parse("q=a&email=a@b.c&q=b"),
    new BadRequestError('Query parameter "q" is given twice'),
  );
});

Deno.test("a cursor from encodeCursor parses back to the id it names", () => {
  const cursor = encodeCursor(ID);
  assert.deepEqual(parse(`cursor=${cursor}`), { limit: 100, after: ID });
});

Deno.test("a cursor is URL-safe base64 without padding", () => {
  for (const id of [ID, "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "00000000000000000000000000"]) {
    const cursor = encodeCursor(id);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(parseListQuery(new URLSearchParams({ cursor })).after, id);
  }
});

Deno.test("a cursor this API did not issue is a BadRequestError quoting it", () => {
  const b64 = (text: string) => btoa(text).replace(/=+$/, "");
  const garbage = [
    "abc",
    "!!!",
    "",
    b64(ID),
    b64("v1:not-a-ulid"),
    b64(`v1:${ID.toLowerCase()}`),
    b64(`v2:${ID}`),
    b64(`v1:${ID}x`),
  ];
  for (const cursor of garbage) {
    assert.throws(
      () => parseListQuery(new URLSearchParams({ cursor })),
      new BadRequestError(`cursor "${cursor}" is not a cursor this API issued`),
    );
  }
});

Deno.test("email and q filters are passed through with the limit and cursor", () => {
  const cursor = encodeCursor(ID);
  assert.deepEqual(parse(`limit=5&cursor=${cursor}&email=Ada%40Example.com&q=love`), {
    limit: 5,
    after: ID,
    email: "Ada@Example.com",
    q: "love",
  });
});

Deno.test("an empty q means no filter", () => {
  assert.deepEqual(parse("q="), { limit: 100 });
});
