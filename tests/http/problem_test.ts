import assert from "node:assert/strict";
import {
  CustomerNotFoundError,
  EmailTakenError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  ValidationError,
  VersionMismatchError,
} from "../../src/domain/errors.ts";
import {
  BadRequestError,
  BodyTooLargeError,
  InsufficientScopeError,
  InvalidTokenError,
  KeySetUnavailableError,
  MalformedBodyError,
  MethodNotAllowedError,
  MissingCredentialsError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from "../../src/http/errors.ts";
import { PROBLEM_JSON } from "../../src/http/media_types.ts";
import { problemResponse } from "../../src/http/problem.ts";
import {
  StorageFullError,
  StoreFailedError,
  StoreUnavailableError,
  WriteFailedError,
} from "../../src/store/store_errors.ts";

const REQUEST_ID = "req-123";
const TYPE = "urn:problem-type:customer-api:";

async function problem(error: unknown) {
  const response = problemResponse(error, REQUEST_ID);
  return { response, body: await response.json() };
}

const cases: { error: Error; status: number; slug: string; title: string }[] = [
  {
    error: new MalformedBodyError("The request body is not valid JSON"),
    status: 400,
    slug: "malformed-body",
    title: "Malformed request body",
  },
  {
    error: new BadRequestError('limit "0" must be an integer from 1 to 1000'),
    status: 400,
    slug: "bad-request",
    title: "Bad request",
  },
  {
    error: new BodyTooLargeError(65536),
    status: 413,
    slug: "body-too-large",
    title: "Request body too large",
  },
  {
    error: new UnsupportedMediaTypeError(null, ["application/json"]),
    status: 415,
    slug: "unsupported-media-type",
    title: "Unsupported media type",
  },
  {
    error: new RouteNotFoundError("/nope"),
    status: 404,
    slug: "not-found",
    title: "Not found",
  },
  {
    error: new CustomerNotFoundError("01JDQ8Z5K3M4N5P6Q7R8S9T0VW"),
    status: 404,
    slug: "not-found",
    title: "Not found",
  },
  {
    error: new MethodNotAllowedError("PATCH", ["GET", "POST", "HEAD"]),
    status: 405,
    slug: "method-not-allowed",
    title: "Method not allowed",
  },
  {
    error: new EmailTakenError("ada@example.com"),
    status: 409,
    slug: "email-taken",
    title: "Email already in use",
  },
  {
    error: new IdempotencyKeyInFlightError(),
    status: 409,
    slug: "idempotency-key-in-flight",
    title: "Request in flight",
  },
  {
    error: new IdempotencyKeyReusedError(),
    status: 422,
    slug: "idempotency-key-reused",
    title: "Idempotency key reused",
  },
  {
    error: new VersionMismatchError(3),
    status: 412,
    slug: "precondition-failed",
    title: "Precondition failed",
  },
  {
    error: new MissingCredentialsError(),
    status: 401,
    slug: "unauthenticated",
    title: "Authentication required",
  },
  {
    error: new InvalidTokenError("The token has expired"),
    status: 401,
    slug: "invalid-token",
    title: "Invalid token",
  },
  {
    error: new InsufficientScopeError("customers:write"),
    status: 403,
    slug: "insufficient-scope",
    title: "Insufficient scope",
  },
];

for (const { error, status, slug, title } of cases) {
  Deno.test(`${error.name} answers ${status} problem+json exposing its message`, async () => {
    const { response, body } = await problem(error);
    assert.equal(response.status, status);
    assert.equal(response.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(body, {
      type: `${TYPE}${slug}`,
      title,
      status,
      detail: error.message,
      request_id: REQUEST_ID,
    });
  });
}

Deno.test("the problem media type constant is application/problem+json", () => {
  assert.equal(PROBLEM_JSON, "application/problem+json");
});

Deno.test("a ValidationError answers 422 with every violation under errors", async () => {
  const violations = [
    { pointer: "/name", detail: "is required" },
    { pointer: "/email", detail: "must be a valid email address" },
  ];
  const { response, body } = await problem(new ValidationError(violations));
  assert.equal(response.status, 422);
  assert.equal(response.headers.get("content-type"), "application/problem+json");
  assert.deepEqual(body, {
    type: `${TYPE}validation-error`,
    title: "The request body is invalid",
    status: 422,
    detail: "The request body breaks one or more field rules; see errors",
    request_id: REQUEST_ID,
    errors: violations,
  });
});

Deno.test("only a ValidationError carries an errors member", async () => {
  for (const { error } of cases) assert.equal("errors" in (await problem(error)).body, false);
});

Deno.test('missing credentials challenge with exactly Bearer realm="customers"', async () => {
  const { response } = await problem(new MissingCredentialsError());
  assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="customers"');
});

Deno.test("an invalid token challenges with error=invalid_token and its description", async () => {
  const { response } = await problem(new InvalidTokenError("The token has expired"));
  assert.equal(
    response.headers.get("www-authenticate"),
    'Bearer realm="customers", error="invalid_token", error_description="The token has expired"',
  );
});

Deno.test("an invalid token description cannot break out of its quoted-string", async () => {
  const { response, body } = await problem(
    new InvalidTokenError('The token\'s "aud" claim is not accepted \\ né\r\nX: y'),
  );
  assert.equal(
    response.headers.get("www-authenticate"),
    'Bearer realm="customers", error="invalid_token", ' +
      `error_description="The token's 'aud' claim is not accepted ' n???X: y"`,
  );
  assert.equal(body.detail, 'The token\'s "aud" claim is not accepted \\ né\r\nX: y');
});

Deno.test("a missing scope answers 403 challenging with error=insufficient_scope and the scope", async () => {
  const { response } = await problem(new InsufficientScopeError("customers:write"));
  assert.equal(
    response.headers.get("www-authenticate"),
    'Bearer realm="customers", error="insufficient_scope", scope="customers:write"',
  );
});

Deno.test("only 401 and 403 answers carry WWW-Authenticate", async () => {
  for (const { error, status } of cases) {
    const { response } = await problem(error);
    assert.equal(response.headers.has("www-authenticate"), status === 401 || status === 403);
  }
});

Deno.test("405 carries the route's methods in the Allow header", async () => {
  const { response } = await problem(new MethodNotAllowedError("PATCH", ["GET", "POST", "HEAD"]));
  assert.equal(response.headers.get("allow"), "GET, POST, HEAD");
});

Deno.test("415 tells the client which media types to send in an Accept header", async () => {
  const error = new UnsupportedMediaTypeError("text/plain", [
    "application/merge-patch+json",
    "application/json",
  ]);
  const { response } = await problem(error);
  assert.equal(response.headers.get("accept"), "application/merge-patch+json, application/json");
});

/** Errors whose answer says what to do and never their cause: status, Retry-After, body. */
const SERVER_SIDE: {
  name: string;
  error: Error;
  status: number;
  retryAfter: string | null;
  slug: string;
  title: string;
  detail: string;
  cause?: string;
}[] = [
  {
    name: "unavailable token keys answer 503 with Retry-After, not a 401",
    error: new KeySetUnavailableError(),
    status: 503,
    retryAfter: "30",
    slug: "key-set-unavailable",
    title: "Token keys unavailable",
    detail: "The keys to verify tokens are unavailable; retry later",
  },
  {
    name: "a failed store answers 503 saying nothing was changed, without the cause",
    error: new StoreFailedError(new Error("EIO: /var/data/events.jsonl")),
    status: 503,
    retryAfter: null,
    slug: "storage-unavailable",
    title: "Storage unavailable",
    detail: "The service cannot store changes right now; nothing was changed",
    cause: "EIO",
  },
  {
    name: "a full disk answers 507 saying nothing was changed, without the cause",
    error: new StorageFullError(
      Object.assign(new Error("ENOSPC: /var/data/log/0001.jsonl"), { code: "ENOSPC" }),
    ),
    status: 507,
    retryAfter: null,
    slug: "storage-full",
    title: "Insufficient storage",
    detail: "The disk is full; nothing was changed. Retry once space is free",
    cause: "ENOSPC",
  },
  {
    name: "a rolled-back write answers 503 with Retry-After: 1, without the cause",
    error: new WriteFailedError(new Error("EIO: /var/data")),
    status: 503,
    retryAfter: "1",
    slug: "storage-unavailable",
    title: "Storage unavailable",
    detail: "The event log could not be written; nothing was changed",
    cause: "EIO",
  },
  {
    name: "an unreachable store answers 503 with Retry-After: 1, without the cause",
    error: new StoreUnavailableError(new Error("ECONNREFUSED 10.0.0.7:5432")),
    status: 503,
    retryAfter: "1",
    slug: "storage-unavailable",
    title: "Storage unavailable",
    detail: "The event store cannot be reached; nothing was changed",
    cause: "ECONNREFUSED",
  },
];

for (const row of SERVER_SIDE) {
  Deno.test(row.name, async () => {
    const { response, body } = await problem(row.error);
    assert.equal(response.status, row.status);
    assert.equal(response.headers.get("retry-after"), row.retryAfter);
    assert.equal(response.headers.has("www-authenticate"), false);
    assert.deepEqual(body, {
      type: `${TYPE}${row.slug}`,
      title: row.title,
      status: row.status,
      detail: row.detail,
      request_id: REQUEST_ID,
    });
    if (row.cause !== undefined) assert.equal(JSON.stringify(body).includes(row.cause), false);
  });
}

Deno.test("an unknown Error answers a generic 500 that does not contain its message", async () => {
  const secret = "connection to postgres://admin:hunter2@db failed";
  const error = new TypeError(secret);
  const response = problemResponse(error, REQUEST_ID);
  const text = await response.text();
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("content-type"), "application/problem+json");
  assert.deepEqual(JSON.parse(text), {
    type: `${TYPE}internal-error`,
    title: "Internal server error",
    status: 500,
    detail: "An unexpected error occurred; the request id identifies it in the logs",
    request_id: REQUEST_ID,
  });
  for (const leak of ["hunter2", "postgres", "TypeError", "at "]) {
    assert.equal(text.includes(leak), false, leak);
  }
});

Deno.test("a thrown non-Error value answers the same generic 500", async () => {
  for (const thrown of ["boom", 42, null, undefined, { message: "secret" }]) {
    const { response, body } = await problem(thrown);
    assert.equal(response.status, 500);
    assert.equal(
      body.detail,
      "An unexpected error occurred; the request id identifies it in the logs",
    );
  }
});

Deno.test("the request id is echoed in the body", async () => {
  const response = problemResponse(new RouteNotFoundError("/"), "abc.DEF-1_2");
  assert.equal((await response.json()).request_id, "abc.DEF-1_2");
});
