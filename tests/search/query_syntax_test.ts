import assert from "node:assert/strict";
import { parseQuery } from "../../src/search/query_syntax.ts";
import type { QueryNode } from "../../src/search/query.ts";
import { InvalidQueryError } from "../../src/search/query_errors.ts";

const text = (name: string, op: ":" | "~", value: string | null): QueryNode => ({
  kind: "match",
  field: { kind: "text", name: name as "name" },
  op,
  value,
});
const DAY = 86_400_000;

Deno.test("a clause is a field, an operator and a value; text values are compared case-folded", () => {
  assert.deepEqual(parseQuery("name:Ada"), text("name", ":", "ada"));
  assert.deepEqual(parseQuery("email~LOVE"), text("email", "~", "love"));
  assert.deepEqual(parseQuery("address.city:London"), text("address.city", ":", "london"));
  assert.deepEqual(parseQuery("address.line2:x"), text("address.line2", ":", "x"));
  assert.deepEqual(parseQuery("id:01jdq8z5k3m4n5p6q7r8s9t0vw"), {
    kind: "match",
    field: { kind: "id" },
    op: ":",
    value: "01jdq8z5k3m4n5p6q7r8s9t0vw",
  });
  assert.deepEqual(parseQuery("metadata['crm_id']:A-1042"), {
    kind: "match",
    field: { kind: "metadata", key: "crm_id" },
    op: ":",
    value: "a-1042",
  });
  assert.deepEqual(parseQuery('metadata["a \\"b\\""]:x'), {
    kind: "match",
    field: { kind: "metadata", key: 'a "b"' },
    op: ":",
    value: "x",
  });
});

Deno.test("values come bare, in double or single quotes with \\\" \\' and \\\\, and bare null is no value", () => {
  assert.deepEqual(parseQuery('name:"Ada Lovelace"'), text("name", ":", "ada lovelace"));
  assert.deepEqual(parseQuery("name:'O\\'Brien'"), text("name", ":", "o'brien"));
  assert.deepEqual(parseQuery('name:"say \\"hi\\" \\\\o/"'), text("name", ":", 'say "hi" \\o/'));
  assert.deepEqual(parseQuery("phone:null"), text("phone", ":", null));
  assert.deepEqual(parseQuery('phone:"null"'), text("phone", ":", "null"));
  assert.deepEqual(parseQuery("name~null"), text("name", "~", "null"), "a ~ value is always text");
  assert.deepEqual(parseQuery("email:ada@example.com"), text("email", ":", "ada@example.com"));
  assert.deepEqual(parseQuery('name:""'), text("name", ":", ""));
});

Deno.test("times are RFC 3339 or Unix seconds, each a range as wide as its precision", () => {
  const second = Date.UTC(2026, 10, 21, 10, 0, 0);
  const cases: [string, number, number][] = [
    ["created_at:2026-11-21", Date.UTC(2026, 10, 21), Date.UTC(2026, 10, 21) + DAY],
    ["created_at:2026-11-21T10:00:00Z", second, second + 1000],
    ["created_at:2026-11-21T10:00:00.250Z", second + 250, second + 251],
    ["created_at:2026-11-21T11:00:00+01:00", second, second + 1000],
    ["created_at:2026-11-21t10:00:00z", second, second + 1000],
    ["updated_at:1700000000", 1_700_000_000_000, 1_700_000_001_000],
    ["created_at>2026-11-21T10:00:00Z", second + 1000, Infinity],
    ["created_at>=2026-11-21T10:00:00Z", second, Infinity],
    ["created_at<2026-11-21T10:00:00Z", -Infinity, second],
    ["created_at<=2026-11-21T10:00:00Z", -Infinity, second + 1000],
  ];
  for (const [query, from, to] of cases) {
    const node = parseQuery(query) as { from: number; to: number };
    assert.deepEqual([node.from, node.to], [from, to], query);
  }
});

Deno.test("AND binds tighter than OR, spaces mean AND, keywords fold case, parentheses group", () => {
  const [a, b, c] = [text("name", ":", "a"), text("name", ":", "b"), text("name", ":", "c")];
  assert.deepEqual(parseQuery("name:a OR name:b AND name:c"), {
    kind: "or",
    nodes: [a, { kind: "and", nodes: [b, c] }],
  });
  assert.deepEqual(parseQuery("name:a name:b or name:c"), {
    kind: "or",
    nodes: [{ kind: "and", nodes: [a, b] }, c],
  });
  assert.deepEqual(parseQuery("(name:a Or name:b) aNd name:c"), {
    kind: "and",
    nodes: [{ kind: "or", nodes: [a, b] }, c],
  });
  assert.deepEqual(parseQuery("-name:a"), { kind: "not", node: a });
  assert.deepEqual(parseQuery("-(name:a OR name:b)"), {
    kind: "not",
    node: { kind: "or", nodes: [a, b] },
  });
  assert.deepEqual(parseQuery("  name:a  "), a);
  assert.equal(parseQuery(""), undefined);
  assert.equal(parseQuery("   "), undefined);
  assert.deepEqual(parseQuery("name:android"), text("name", ":", "android"), "AND inside a value");
});

Deno.test("twenty clauses and 1,000 characters are allowed, one more of either is not", () => {
  const twenty = Array.from({ length: 20 }, (_, i) => `name:n${i}`).join(" ");
  assert.equal((parseQuery(twenty) as { nodes: unknown[] }).nodes.length, 20);
  const long = `name:"${"x".repeat(1000 - 7)}"`;
  assert.equal(long.length, 1000);
  assert.ok(parseQuery(long) !== undefined);
  assert.throws(
    () => parseQuery(`${twenty} name:n20`),
    invalid(170, "expected at most 20 clauses in a query"),
  );
  assert.throws(
    () => parseQuery(`${long} `),
    invalid(1000, "expected the end: a query has at most 1000 characters"),
  );
});

/** An InvalidQueryError with this offset and detail. */
function invalid(offset: number, detail: string) {
  return (error: unknown) => {
    assert.ok(error instanceof InvalidQueryError, String(error));
    assert.equal(error.message, `offset ${offset}: ${detail}`);
    assert.deepEqual([error.offset, error.detail], [offset, detail]);
    return true;
  };
}

Deno.test("each malformed query names the offset and what was expected there", () => {
  const cases: [string, number, string][] = [
    ["name:", 5, "expected a value after ':'"],
    ["name:ada AND email:", 19, "expected a value after ':'"],
    ["name", 4, "expected ':', '~', '>', '>=', '<' or '<=' after the field"],
    ["name ada", 4, "expected ':', '~', '>', '>=', '<' or '<=' after the field"],
    [":ada", 0, "expected a field name"],
    [
      "nmae:ada",
      0,
      "unknown field \"nmae\"; use id, name, email, phone, address.line1, address.line2, address.city, address.region, address.postal_code, address.country, created_at, updated_at or metadata['key']",
    ],
    ["(name:a", 7, "expected ')' to close the '(' at offset 0"],
    ["name:a)", 6, "unexpected ')' with no '(' open"],
    ["()", 1, "expected a clause before ')'"],
    ["name:a AND", 10, "expected a clause"],
    ["OR name:a", 0, "expected a clause before 'OR'"],
    ["name:a AND OR name:b", 11, "expected a clause before 'OR'"],
    ["-", 1, "expected a clause"],
    ['name:"ada', 9, 'expected " to close the string at offset 5'],
    ['name:"a\\nb"', 7, 'expected \\" or \\\\ (no other escape exists)'],
    ["name~ab", 5, "expected at least 3 characters after '~'"],
    ["name~'ab'", 5, "expected at least 3 characters after '~'"],
    ["name>ada", 4, "expected ':' or '~' after name ('>' is for times)"],
    ["phone<=1", 5, "expected ':' or '~' after phone ('<=' is for times)"],
    ["created_at~2026", 10, "expected ':', '>', '>=', '<' or '<=' after created_at"],
    ["created_at>yesterday", 11, "expected an RFC 3339 date or time, or Unix seconds"],
    ["created_at>2026-02-30", 11, "expected an RFC 3339 date or time, or Unix seconds"],
    ["created_at>2026-11-21T25:00:00Z", 11, "expected an RFC 3339 date or time, or Unix seconds"],
    ["created_at>null", 11, "expected an RFC 3339 date or time, or Unix seconds"],
    ["id~01JD", 2, "expected ':' after id (it has no '~')"],
    ["metadata['k']~abc", 13, "expected ':' after metadata['k'] (it has no '~')"],
    [
      "metadata.k:x",
      0,
      "unknown field \"metadata.k\"; use id, name, email, phone, address.line1, address.line2, address.city, address.region, address.postal_code, address.country, created_at, updated_at or metadata['key']",
    ],
    ["metadata[k]:x", 8, "expected ['key'] after metadata"],
    ["metadata['k':x", 12, "expected ']' after the key"],
    [
      "name:é AND nmae:x",
      11,
      "unknown field \"nmae\"; use id, name, email, phone, address.line1, address.line2, address.city, address.region, address.postal_code, address.country, created_at, updated_at or metadata['key']",
    ],
    ["name:😀😀 email:", 14, "expected a value after ':'"],
  ];
  for (const [query, offset, detail] of cases) {
    assert.throws(() => parseQuery(query), invalid(offset, detail), query);
  }
});
