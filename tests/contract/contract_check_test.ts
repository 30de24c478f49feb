/** The contract check itself: it passes conforming responses and names each kind of breach. */
import assert from "node:assert/strict";
import {
  compileEverySchema,
  contractViolations,
  type ReceivedResponse,
} from "../support/contract.ts";
import { PROBLEM_TYPES, type ProblemSlug } from "../../src/http/problem_types.ts";

const ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";
const CUSTOMER = {
  id: ID,
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: null,
  address: null,
  metadata: {},
  created_at: "2026-11-21T10:00:00.000Z",
  updated_at: "2026-11-21T10:00:00.000Z",
  version: 1,
};
const JSON_UTF8 = "application/json; charset=utf-8";

function response(
  status: number,
  headers: Record<string, string>,
  body?: unknown,
): ReceivedResponse {
  return {
    status,
    headers: new Headers({
      "x-request-id": "req-1",
      "x-content-type-options": "nosniff",
      ...headers,
    }),
    text: body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body),
  };
}

function problem(status: number, slug: string, extra: Record<string, string> = {}) {
  const body = {
    type: `urn:problem-type:customer-api:${slug}`,
    title: PROBLEM_TYPES[slug as ProblemSlug]?.title ?? "t",
    status,
    detail: "d",
    request_id: "req-1",
  };
  return response(status, { "content-type": "application/problem+json", ...extra }, body);
}

const check = (method: string, path: string, res: ReceivedResponse) =>
  contractViolations(method, `http://127.0.0.1:1${path}`, res);

Deno.test("conforming responses pass", () => {
  const cases: [string, string, ReceivedResponse][] = [
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, { "content-type": JSON_UTF8, etag: '"1"' }, CUSTOMER),
    ],
    ["HEAD", `/api/customers/${ID}`, response(200, { "content-type": JSON_UTF8, etag: '"1"' })],
    ["GET", `/api/customers/${ID}`, response(304, { etag: '"1"' })],
    [
      "GET",
      "/api/customers",
      response(200, { "content-type": JSON_UTF8 }, { data: [CUSTOMER], next_cursor: null }),
    ],
    [
      "POST",
      "/api/customers",
      response(
        201,
        { "content-type": JSON_UTF8, etag: '"1"', location: `/api/customers/${ID}` },
        CUSTOMER,
      ),
    ],
    ["DELETE", `/api/customers/${ID}`, response(204, {})],
    [
      "GET",
      "/api/customers",
      problem(401, "unauthenticated", { "www-authenticate": 'Bearer realm="customers"' }),
    ],
    [
      "GET",
      "/api/customers",
      problem(429, "rate-limited", {
        "retry-after": "2",
        ratelimit: '"default";r=0;t=2',
        "ratelimit-policy": '"default";q=5;w=1',
      }),
    ],
    ["PATCH", "/api/customers", problem(405, "method-not-allowed", { allow: "GET, POST, HEAD" })],
    ["GET", "/nowhere", problem(404, "not-found")],
    ["GET", "/healthz", response(200, { "content-type": JSON_UTF8 }, { status: "ok" })],
  ];
  for (const [method, path, res] of cases) {
    assert.deepEqual(check(method, path, res), [], `${method} ${path} ${res.status}`);
  }
});

Deno.test("each kind of breach is named", () => {
  const ok = { "content-type": JSON_UTF8, etag: '"1"' };
  const cases: [string, string, ReceivedResponse, RegExp][] = [
    ["GET", `/api/customers/${ID}`, response(201, ok, CUSTOMER), /status 201 is not documented/],
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, { etag: '"1"', "content-type": "text/plain" }, "x"),
      /Content-Type "text\/plain" is not documented/,
    ],
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, { ...ok, "content-type": "application/json" }, CUSTOMER),
      /charset=utf-8/,
    ],
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, ok, { ...CUSTOMER, extra: 1 }),
      /must NOT have additional properties \("extra"\)/,
    ],
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, ok, { ...CUSTOMER, version: 0 }),
      /body\/version must be >= 1/,
    ],
    ["GET", `/api/customers/${ID}`, response(200, ok, "{not json"), /not JSON/],
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, { "content-type": JSON_UTF8 }, CUSTOMER),
      /required header ETag is missing/,
    ],
    [
      "GET",
      `/api/customers/${ID}`,
      response(200, { ...ok, etag: 'W/"1"' }, CUSTOMER),
      /header ETag must match pattern/,
    ],
    ["HEAD", `/api/customers/${ID}`, response(200, ok, CUSTOMER), /body must be empty/],
    [
      "PATCH",
      "/api/customers",
      problem(405, "method-not-allowed", { allow: "GET" }),
      /Allow "GET" differs/,
    ],
    [
      "GET",
      "/nowhere",
      problem(405, "method-not-allowed", { allow: "GET" }),
      /status 405 is not documented/,
    ],
    ["GET", "/api/customers", problem(404, "not-found"), /status 404 is not documented/],
    [
      "GET",
      "/api/customers",
      problem(400, "malformed-body"),
      /body\/type must be equal to one of the allowed values/,
    ],
    [
      "GET",
      "/api/customers",
      problem(401, "invalid-token"),
      /required header WWW-Authenticate is missing/,
    ],
    [
      "GET",
      "/api/customers",
      problem(429, "rate-limited", { "retry-after": "soon" }),
      /header Retry-After must be integer/,
    ],
    [
      "GET",
      "/api/customers",
      {
        ...problem(400, "bad-request"),
        text: problem(400, "bad-request").text.replace("Bad", "Odd"),
      },
      /problem "bad-request" says 400 "Odd request", its row 400 "Bad request"/,
    ],
  ];
  for (const [method, path, res, expected] of cases) {
    const violations = check(method, path, res);
    assert.ok(
      violations.some((violation) => expected.test(violation)),
      `${method} ${path} ${res.status}: expected ${expected} in ${JSON.stringify(violations)}`,
    );
  }
});

Deno.test("every schema of the document compiles under strict Ajv", () => {
  assert.ok(compileEverySchema() > 100);
});
