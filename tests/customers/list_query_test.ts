import assert from "node:assert/strict";
import { BadRequestError } from "../../src/http/errors.ts";
import {
  DEFAULT_PAGE_LIMIT as DEFAULT_LIMIT,
  MAX_PAGE_LIMIT as MAX_LIMIT,
} from "../../src/http/paging.ts";
import { encodeCursor, parseListQuery } from "../../src/customers/list_query.ts";

const ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";

function parse(query: string) {
  return parseListQuery(query);
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
    assert.deepEqual(parseListQuery(new URLSearchParams({ cursor }).toString()).after, id);
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
      () => parseListQuery(new URLSearchParams({ cursor }).toString()),
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

Deno.test("an empty filter means no filter, as an HTML form sends an empty field", () => {
  for (const query of ["q=", "email=", "email=&q=", "?email=&q="]) {
    assert.deepEqual(parse(query), { limit: 100 }, query);
  }
  assert.deepEqual(parse("email=&q=ada"), { limit: 100, q: "ada" });
});

Deno.test("an email filter of 254 characters is used, of 255 refused as a bad request", () => {
  const email254 = `${"a".repeat(64)}@${"b".repeat(185)}.com`;
  assert.equal(email254.length, 254);
  assert.equal(parse(`email=${email254}`).email, email254);
  assert.throws(() => parse(`email=a${email254}`), (error: Error) => {
    assert.ok(error instanceof BadRequestError);
    assert.match(error.message, /^email "a{40}…" is longer than 254 characters$/);
    return true;
  });
  assert.throws(() => parse(`email=${"x".repeat(300)}`), BadRequestError);
});

Deno.test("a filter that percent-decodes to bytes that are not UTF-8 is refused, naming it", () => {
  // %ED%A0%80 is a UTF-16 surrogate encoded as if it were a character; %FF is never UTF-8.
  for (const [query, name] of [["q=%ED%A0%80", "q"], ["email=a%FF", "email"], ["q%C0=x", "q%C0"]]) {
    assert.throws(
      () => parse(query),
      new BadRequestError(`Query parameter "${name}" is not percent-encoded UTF-8`),
      query,
    );
  }
});

Deno.test("a lone % stays literal and valid UTF-8 escapes decode", () => {
  assert.equal(parse("q=100%").q, "100%");
  assert.equal(parse("q=%25%zz").q, "%%zz");
  assert.equal(parse("q=Zo%C3%AB+%F0%9F%98%80").q, "Zoë 😀");
});
