import "../../src/customers/customer_problems.ts";
import "../../src/feed/feed_problems.ts";
import "../../src/webhooks/webhook_problems.ts";
import { WriteContendedError } from "../../src/customers/write_contention.ts";
import { InvalidQueryError } from "../../src/search/query_errors.ts";
import { WebhookLimitError, WebhookNotFoundError } from "../../src/webhooks/webhook_errors.ts";
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
  BodyTimeoutError,
  BodyTooLargeError,
  InsufficientScopeError,
  InvalidTokenError,
  KeySetUnavailableError,
  MaintenanceFailingError,
  MalformedBodyError,
  MethodNotAllowedError,
  MissingCredentialsError,
  OriginNotAllowedError,
  RateLimitedError,
  ReplicaBehindError,
  RouteNotFoundError,
  ServiceStartingError,
  UnsupportedMediaTypeError,
} from "../../src/http/errors.ts";
import {
  CursorExpiredError,
  TooManyStreamsError,
  VersionExpiredError,
} from "../../src/feed/feed_errors.ts";
import { problemResponse } from "../../src/http/problem.ts";
import {
  PROBLEM_TYPES,
  problemHeaders,
  problemMembers,
  type ProblemSlug,
} from "../../src/http/problem_types.ts";
import {
  StorageFullError,
  StoreError,
  StoreUnavailableError,
  WriteFailedError,
} from "../../src/store/store_errors.ts";

/** One instance of every error class the server maps to a problem. */
const SAMPLES: Error[] = [
  new BadRequestError("x"),
  new InvalidQueryError(5, "expected a value after ':'"),
  new MalformedBodyError("x"),
  new MissingCredentialsError(),
  new InvalidTokenError("x"),
  new InsufficientScopeError("customers:write"),
  new OriginNotAllowedError("https://evil.example"),
  new RouteNotFoundError("/x"),
  new ServiceStartingError(),
  new CustomerNotFoundError("x"),
  new MethodNotAllowedError("PUT", ["GET"]),
  new EmailTakenError("ada@example.com"),
  new IdempotencyKeyInFlightError(),
  new VersionMismatchError(1),
  new BodyTimeoutError(1000),
  new BodyTooLargeError(1),
  new UnsupportedMediaTypeError(null, ["application/json"]),
  new ValidationError([{ pointer: "/name", detail: "is required" }]),
  new IdempotencyKeyReusedError(),
  new RateLimitedError(3),
  new ReplicaBehindError(7, 5),
  new KeySetUnavailableError(),
  new MaintenanceFailingError(3, "Checksum mismatch"),
  new WriteFailedError(new Error("EIO")),
  new WriteContendedError(5000),
  new StoreUnavailableError(new Error("ECONNREFUSED")),
  new StoreError("any other store failure"),
  new StorageFullError(new Error("ENOSPC")),
  new CursorExpiredError(3, 10, 20),
  new VersionExpiredError("x", 1),
  new TooManyStreamsError(1000),
  new WebhookNotFoundError("x"),
  new WebhookLimitError(2),
];

Deno.test("every error class of the problem table answers its row's status, title and type", async () => {
  const tabled = Object.values(PROBLEM_TYPES).flatMap((type) =>
    type.sources.map((source) => ({ type, error: source.error }))
  );
  assert.deepEqual(
    tabled.map(({ error }) => error.name).sort(),
    SAMPLES.map((sample) => sample.constructor.name).sort(),
    "a table row without a sample here (or a sample without a row)",
  );
  for (const { type, error } of tabled) {
    const sample = SAMPLES.find((candidate) => candidate.constructor === error)!;
    const response = problemResponse(sample, "req-1");
    const body = await response.json();
    assert.equal(response.status, type.status, error.name);
    assert.deepEqual([body.type, body.title, body.status], [type.type, type.title, type.status]);
  }
});

Deno.test("every problem type has its own URN ending in its slug, and one title", () => {
  const types = Object.values(PROBLEM_TYPES);
  assert.equal(new Set(types.map((type) => type.type)).size, types.length);
  for (const type of types) {
    assert.equal(type.type, `urn:problem-type:customer-api:${type.slug}`);
    assert.ok(type.status >= 400 && type.status <= 599, type.slug);
  }
});

Deno.test("a subclass of a tabled error answers its parent's problem", async () => {
  class ReservedNameError extends BadRequestError {}
  const body = await problemResponse(new ReservedNameError("x"), "req-1").json();
  assert.equal(body.type, PROBLEM_TYPES["bad-request"].type);
});

Deno.test("a header only some of a group's errors send is optional, one all send is not", () => {
  const of = (...slugs: ProblemSlug[]) => problemHeaders(slugs);
  assert.deepEqual(of("key-set-unavailable"), { always: ["Retry-After"], sometimes: [] });
  assert.deepEqual(of("key-set-unavailable", "storage-unavailable"), {
    always: [],
    sometimes: ["Retry-After"],
  });
  assert.deepEqual(of("unauthenticated", "invalid-token"), {
    always: ["WWW-Authenticate"],
    sometimes: [],
  });
  assert.deepEqual(of("origin-not-allowed"), { always: [], sometimes: [] });
});

Deno.test("only a validation problem and an invalid query (errors) and an expired cursor (oldest_seq, last_seq) carry members beyond RFC 9457's", async () => {
  const withMembers = Object.values(PROBLEM_TYPES).filter((type) =>
    problemMembers(type.slug as ProblemSlug).length > 0
  );
  assert.deepEqual(withMembers.map((type) => type.slug).sort(), [
    "cursor-expired",
    "invalid-query",
    "validation-error",
  ]);
  assert.deepEqual(problemMembers("validation-error"), ["errors"]);
  assert.deepEqual(problemMembers("invalid-query"), ["errors"]);
  const invalid = await problemResponse(new InvalidQueryError(5, "expected a value after ':'"), "r")
    .json();
  assert.deepEqual([invalid.status, invalid.detail, invalid.errors], [
    400,
    "offset 5: expected a value after ':'",
    [
      { pointer: "/query", detail: "offset 5: expected a value after ':'" },
    ],
  ]);
  assert.deepEqual(problemMembers("cursor-expired"), ["oldest_seq", "last_seq"]);
  const body = await problemResponse(new CursorExpiredError(3, 10, 20), "req-1").json();
  assert.deepEqual([body.status, body.oldest_seq, body.last_seq], [410, 10, 20]);
});
