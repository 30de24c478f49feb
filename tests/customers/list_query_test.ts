import assert from "node:assert/strict";
import { BadRequestError } from "../../src/http/errors.ts";
import {
  DEFAULT_PAGE_LIMIT as DEFAULT_LIMIT,
  MAX_PAGE_LIMIT as MAX_LIMIT,
} from "../../src/http/paging.ts";
import { encodeCursor, parseListQuery } from "../../src/customers/list_query.ts";
import { sortOf } from "../../src/search/list_sort.ts";
import { InvalidQueryError } from "../../src/search/query_errors.ts";

const ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";
const BY_ID = sortOf("id");

function parse(query: string) {
  return parseListQuery(query);
}

/** The `~` clauses `q` stands for, with the value case-folded. */
const qClauses = (value: string) => ({
  kind: "or",
  nodes: ["name", "email"].map((name) => ({
    kind: "match",
    field: { kind: "text", name },
    op: "~",
    value,
  })),
});

Deno.test("an empty query lists the first page of the default size in id order, unfiltered", () => {
  assert.equal(DEFAULT_LIMIT, 100);
  assert.deepEqual(parse(""), { limit: 100, sort: BY_ID, searches: false });
});

Deno.test("limit accepts the bounds 1 and 1000", () => {
  assert.equal(MAX_LIMIT, 1000);
  for (const limit of [1, 1000, 37]) assert.equal(parse(`limit=${limit}`).limit, limit);
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
    new BadRequestError(
      'Unknown query parameter "limt"; use limit, cursor, email, q, query or sort',
    ),
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

Deno.test("an id cursor from encodeCursor parses back to the id it names", () => {
  assert.deepEqual(parse(`cursor=${encodeCursor({ id: ID })}`).after, { id: ID });
});

Deno.test("a cursor is URL-safe base64 without padding, in every sort", () => {
  for (const id of [ID, "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "00000000000000000000000000"]) {
    for (const [sort, key] of [["id", undefined], ["-name", "zoë 😀?"], ["created_at", 17e11]]) {
      const cursor = encodeCursor({ id, key: key as string }, sortOf(sort as "id"));
      assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      const params = new URLSearchParams({ cursor, sort: sort as string });
      assert.deepEqual(parse(params.toString()).after, key === undefined ? { id } : { id, key });
    }
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
    b64(`v2:["id","${ID}"]`),
    b64(`v2:["name","${ID}",3]`),
  ];
  for (const cursor of garbage) {
    const sort = cursor === garbage.at(-1) ? "&sort=name" : "";
    assert.throws(
      () => parseListQuery(`${new URLSearchParams({ cursor })}${sort}`),
      new BadRequestError(`cursor "${cursor}" is not a cursor this API issued`),
    );
  }
});

Deno.test("a cursor of one sort is refused with another, naming both", () => {
  const cursor = encodeCursor({ id: ID, key: "ada" }, sortOf("name"));
  assert.throws(
    () => parse(`sort=-name&cursor=${cursor}`),
    new BadRequestError(`cursor "${cursor}" continues sort=name, not sort=-name`),
  );
  assert.throws(() => parse(`cursor=${cursor}`), /continues sort=name, not sort=id/);
});

Deno.test("sort takes the eight orders and refuses anything else, listing them", () => {
  for (const sort of ["id", "-id", "created_at", "-created_at", "updated_at", "-name"]) {
    const request = parse(`sort=${sort}`);
    assert.deepEqual(request.sort, sortOf(sort as "id"));
    assert.equal(request.searches, request.sort.field !== "id", sort);
  }
  assert.throws(
    () => parse("sort=email"),
    new BadRequestError(
      'sort "email" is not one of id, -id, created_at, -created_at, updated_at, -updated_at, ' +
        "name, -name",
    ),
  );
});

Deno.test("email is an exact clause on email and q a substring of name or email, both folded", () => {
  const cursor = encodeCursor({ id: ID });
  const request = parse(`limit=5&cursor=${cursor}&email=Ada%40Example.com&q=LoVe`);
  assert.deepEqual(request, {
    limit: 5,
    sort: BY_ID,
    after: { id: ID },
    searches: true,
    query: {
      kind: "and",
      nodes: [
        {
          kind: "match",
          field: { kind: "text", name: "email" },
          op: ":",
          value: "ada@example.com",
        },
        qClauses("love"),
      ],
    },
  });
  assert.equal(parse("email=a@b.c").searches, false, "an exact email alone is the email index's");
});

Deno.test("query is parsed, and given with q or email it is refused", () => {
  assert.deepEqual(parse("query=name%3Aada").query, {
    kind: "match",
    field: { kind: "text", name: "name" },
    op: ":",
    value: "ada",
  });
  assert.throws(() => parse("query=name%3Aada&q=x"), /query cannot be given with q/);
  assert.throws(() => parse("query=name%3Aada&email=a@b.c"), /query cannot be given with email/);
  assert.throws(() => parse("query=name%3A"), InvalidQueryError);
});

Deno.test("an empty filter means no filter, as an HTML form sends an empty field", () => {
  for (const query of ["q=", "email=", "email=&q=", "?email=&q=", "query=", "query=%20%20"]) {
    assert.equal(parse(query).query, undefined, query);
  }
  assert.deepEqual(parse("email=&q=ada").query, qClauses("ada"));
});

Deno.test("an email filter of 254 characters is used, of 255 refused as a bad request", () => {
  const email254 = `${"a".repeat(64)}@${"b".repeat(185)}.com`;
  assert.equal(email254.length, 254);
  assert.ok(parse(`email=${email254}`).query !== undefined);
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
  assert.deepEqual(parse("q=100%").query, qClauses("100%"));
  assert.deepEqual(parse("q=%25%zz").query, qClauses("%%zz"));
  assert.deepEqual(parse("q=Zo%C3%AB+%F0%9F%98%80").query, qClauses("zoë 😀"));
});
