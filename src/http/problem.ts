import { PROBLEM_JSON } from "./media_types.ts";
import {
  CustomerNotFoundError,
  EmailTakenError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  ValidationError,
  VersionMismatchError,
  type Violation,
} from "../domain/errors.ts";
import { StorageFullError, StoreFailedError, WriteFailedError } from "../store/store_errors.ts";
import {
  BadRequestError,
  BodyTooLargeError,
  InsufficientScopeError,
  InvalidTokenError,
  KeySetUnavailableError,
  MalformedBodyError,
  MethodNotAllowedError,
  MissingCredentialsError,
  OriginNotAllowedError,
  RateLimitedError,
  RouteNotFoundError,
  ServiceStartingError,
  UnsupportedMediaTypeError,
} from "./errors.ts";

const REALM = 'Bearer realm="customers"';

interface Problem {
  status: number;
  type: string;
  title: string;
  detail: string;
  errors?: Violation[];
  headers?: Record<string, string>;
}

/**
 * The one place errors become HTTP answers. Client errors expose their message;
 * anything unknown becomes a 500 that says nothing about its cause.
 */
export function problemResponse(error: unknown, requestId: string): Response {
  const problem = toProblem(error);
  const body = {
    type: problem.type,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    request_id: requestId,
    ...(problem.errors === undefined ? {} : { errors: problem.errors }),
  };
  return new Response(JSON.stringify(body), {
    status: problem.status,
    headers: { "content-type": PROBLEM_JSON, ...problem.headers },
  });
}

function toProblem(error: unknown): Problem {
  const detail = error instanceof Error ? error.message : "";
  if (error instanceof ValidationError) {
    return {
      ...kind(422, "validation-error", "The request body is invalid"),
      detail: "The request body breaks one or more field rules; see errors",
      errors: error.violations,
    };
  }
  if (error instanceof MalformedBodyError) {
    return { ...kind(400, "malformed-body", "Malformed request body"), detail };
  }
  if (error instanceof BadRequestError) {
    return { ...kind(400, "bad-request", "Bad request"), detail };
  }
  if (error instanceof BodyTooLargeError) {
    return { ...kind(413, "body-too-large", "Request body too large"), detail };
  }
  if (error instanceof UnsupportedMediaTypeError) {
    return {
      ...kind(415, "unsupported-media-type", "Unsupported media type"),
      detail,
      headers: { accept: error.accepted.join(", ") },
    };
  }
  if (error instanceof RouteNotFoundError || error instanceof CustomerNotFoundError) {
    return { ...kind(404, "not-found", "Not found"), detail };
  }
  if (error instanceof MethodNotAllowedError) {
    return {
      ...kind(405, "method-not-allowed", "Method not allowed"),
      detail,
      headers: { allow: error.allow.join(", ") },
    };
  }
  if (error instanceof EmailTakenError) {
    return { ...kind(409, "email-taken", "Email already in use"), detail };
  }
  if (error instanceof IdempotencyKeyInFlightError) {
    return { ...kind(409, "idempotency-key-in-flight", "Request in flight"), detail };
  }
  if (error instanceof IdempotencyKeyReusedError) {
    return { ...kind(422, "idempotency-key-reused", "Idempotency key reused"), detail };
  }
  if (error instanceof VersionMismatchError) {
    return { ...kind(412, "precondition-failed", "Precondition failed"), detail };
  }
  if (error instanceof MissingCredentialsError) {
    return {
      ...kind(401, "unauthenticated", "Authentication required"),
      detail,
      headers: { "www-authenticate": REALM },
    };
  }
  if (error instanceof InvalidTokenError) {
    return {
      ...kind(401, "invalid-token", "Invalid token"),
      detail,
      headers: {
        "www-authenticate": `${REALM}, error="invalid_token", error_description="${
          quoted(detail)
        }"`,
      },
    };
  }
  if (error instanceof InsufficientScopeError) {
    return {
      ...kind(403, "insufficient-scope", "Insufficient scope"),
      detail,
      headers: {
        "www-authenticate": `${REALM}, error="insufficient_scope", scope="${error.scope}"`,
      },
    };
  }
  if (error instanceof RateLimitedError) {
    return {
      ...kind(429, "rate-limited", "Too many requests"),
      detail,
      headers: { "retry-after": String(error.retryAfter) },
    };
  }
  if (error instanceof OriginNotAllowedError) {
    return { ...kind(403, "origin-not-allowed", "Origin not allowed"), detail };
  }
  if (error instanceof KeySetUnavailableError) {
    return {
      ...kind(503, "key-set-unavailable", "Token keys unavailable"),
      detail,
      headers: { "retry-after": "30" },
    };
  }
  if (error instanceof ServiceStartingError) {
    return {
      ...kind(503, "starting", "Service starting"),
      detail,
      headers: { "retry-after": "1" },
    };
  }
  if (error instanceof StorageFullError) {
    return { ...kind(507, "storage-full", "Insufficient storage"), detail };
  }
  if (error instanceof WriteFailedError) {
    return {
      ...kind(503, "storage-unavailable", "Storage unavailable"),
      detail,
      headers: { "retry-after": "1" },
    };
  }
  if (error instanceof StoreFailedError) {
    return {
      ...kind(503, "storage-unavailable", "Storage unavailable"),
      detail: "The service cannot store changes right now; nothing was changed",
    };
  }
  return {
    ...kind(500, "internal-error", "Internal server error"),
    detail: "An unexpected error occurred; the request id identifies it in the logs",
  };
}

function kind(status: number, slug: string, title: string): Omit<Problem, "detail"> {
  return { status, type: `urn:problem-type:customer-api:${slug}`, title };
}

/** Makes a message safe inside a quoted-string of a header (RFC 9110 §5.6.4). */
function quoted(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "'");
}
