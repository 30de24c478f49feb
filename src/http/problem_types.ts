import {
  CustomerNotFoundError,
  EmailTakenError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  ValidationError,
  VersionMismatchError,
} from "../domain/errors.ts";
import {
  CursorExpiredError,
  TooManyStreamsError,
  VersionExpiredError,
} from "../feed/feed_errors.ts";
import {
  StorageFullError,
  StoreError,
  StoreUnavailableError,
  WriteFailedError,
} from "../store/store_errors.ts";
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
} from "./errors.ts";
import { WebhookLimitError, WebhookNotFoundError } from "../webhooks/webhook_errors.ts";
import { WriteContendedError } from "../customers/write_contention.ts";

/** How one error class becomes its problem: what it adds to the status, title and type. */
export interface ProblemSource<E extends Error = Error> {
  error: abstract new (...args: never[]) => E;
  /** A fixed detail instead of the message, for answers that must not expose their cause. */
  detail?: string;
  /** Response headers by their canonical name, each made from the error. */
  headers?: Readonly<Record<string, (error: E) => string>>;
  /** Members beyond RFC 9457's, each made from the error. */
  members?: Readonly<Record<string, (error: E) => unknown>>;
}

/** One problem type: status, title, the `type` URN, and the error classes that answer with it. */
export interface ProblemType {
  slug: string;
  status: number;
  title: string;
  type: string;
  sources: readonly ProblemSource[];
}

/** The detail of a 500: it says nothing about the cause (only the logs do). */
export const INTERNAL_DETAIL =
  "An unexpected error occurred; the request id identifies it in the logs";
const REALM = 'Bearer realm="customers"';

// Each error's own type reaches its functions; the table holds them as plain sources.
const on = <E extends Error>(
  error: ProblemSource<E>["error"],
  more: Omit<ProblemSource<E>, "error"> = {},
) => ({ error, ...more }) as unknown as ProblemSource;
const row = (status: number, title: string, ...sources: ProblemSource[]) => ({
  status,
  title,
  sources,
});

const ROWS = {
  "bad-request": row(400, "Bad request", on(BadRequestError)),
  "malformed-body": row(400, "Malformed request body", on(MalformedBodyError)),
  "unauthenticated": row(
    401,
    "Authentication required",
    on(MissingCredentialsError, { headers: { "WWW-Authenticate": () => REALM } }),
  ),
  "invalid-token": row(
    401,
    "Invalid token",
    on(InvalidTokenError, {
      headers: {
        "WWW-Authenticate": (error) =>
          `${REALM}, error="invalid_token", error_description="${quoted(error.message)}"`,
      },
    }),
  ),
  "insufficient-scope": row(
    403,
    "Insufficient scope",
    on(InsufficientScopeError, {
      headers: {
        "WWW-Authenticate": (error) =>
          `${REALM}, error="insufficient_scope", scope="${error.scope}"`,
      },
    }),
  ),
  "origin-not-allowed": row(403, "Origin not allowed", on(OriginNotAllowedError)),
  "not-found": row(
    404,
    "Not found",
    on(RouteNotFoundError),
    on(CustomerNotFoundError),
    on(WebhookNotFoundError),
  ),
  "method-not-allowed": row(
    405,
    "Method not allowed",
    on(MethodNotAllowedError, { headers: { "Allow": (error) => error.allow.join(", ") } }),
  ),
  "email-taken": row(409, "Email already in use", on(EmailTakenError)),
  "webhook-limit-reached": row(409, "Too many webhook endpoints", on(WebhookLimitError)),
  "idempotency-key-in-flight": row(409, "Request in flight", on(IdempotencyKeyInFlightError)),
  "cursor-expired": row(
    410,
    "Cursor expired",
    on(CursorExpiredError, {
      members: { oldest_seq: (error) => error.oldestSeq, last_seq: (error) => error.lastSeq },
    }),
  ),
  "version-expired": row(410, "Version past retention", on(VersionExpiredError)),
  "body-timeout": row(408, "Request body timed out", on(BodyTimeoutError)),
  "precondition-failed": row(412, "Precondition failed", on(VersionMismatchError)),
  "body-too-large": row(413, "Request body too large", on(BodyTooLargeError)),
  "unsupported-media-type": row(
    415,
    "Unsupported media type",
    on(UnsupportedMediaTypeError, {
      headers: { "Accept": (error) => error.accepted.join(", ") },
    }),
  ),
  "validation-error": row(
    422,
    "The request body is invalid",
    on(ValidationError, {
      detail: "The request body breaks one or more field rules; see errors",
      members: { errors: (error) => error.violations },
    }),
  ),
  "idempotency-key-reused": row(422, "Idempotency key reused", on(IdempotencyKeyReusedError)),
  "rate-limited": row(
    429,
    "Too many requests",
    on(RateLimitedError, { headers: { "Retry-After": (e) => String(e.retryAfter) } }),
  ),
  // Anything no row names lands here (see problem.ts).
  "internal-error": row(500, "Internal server error"),
  "key-set-unavailable": row(
    503,
    "Token keys unavailable",
    on(KeySetUnavailableError, { headers: { "Retry-After": () => "30" } }),
  ),
  "starting": row(
    503,
    "Service starting",
    on(ServiceStartingError, { headers: { "Retry-After": () => "1" } }),
  ),
  "maintenance-failing": row(
    503,
    "Background maintenance failing",
    on(MaintenanceFailingError, { headers: { "Retry-After": () => "60" } }),
  ),
  "too-many-streams": row(
    503,
    "Too many event streams",
    on(TooManyStreamsError, { headers: { "Retry-After": () => "5" } }),
  ),
  "storage-unavailable": row(
    503,
    "Storage unavailable",
    on(WriteFailedError, { headers: { "Retry-After": () => "1" } }),
    on(StoreUnavailableError, { headers: { "Retry-After": () => "1" } }),
    // Any other store error (a failed sync, say): the store takes no writes.
    on(StoreError, {
      detail: "The service cannot store changes right now; nothing was changed",
    }),
  ),
  "write-contended": row(
    503,
    "Write contended",
    on(WriteContendedError, { headers: { "Retry-After": () => "1" } }),
  ),
  "replica-behind": row(
    503,
    "Replica behind",
    on(ReplicaBehindError, { headers: { "Retry-After": () => "1" } }),
  ),
  "storage-full": row(507, "Insufficient storage", on(StorageFullError)),
};

/** The slug of a problem type: the last part of its `type` URN. */
export type ProblemSlug = keyof typeof ROWS;

/** Every problem type the server answers with, by slug; the one table of status, title and URN. */
export const PROBLEM_TYPES: Readonly<Record<ProblemSlug, ProblemType>> = withUrns(ROWS);

function withUrns<K extends string>(rows: Record<K, Omit<ProblemType, "slug" | "type">>) {
  const table = {} as Record<K, ProblemType>;
  for (const slug of Object.keys(rows) as K[]) {
    table[slug] = { slug, type: `urn:problem-type:customer-api:${slug}`, ...rows[slug] };
  }
  return table;
}

/** The full `type` URN of a problem slug. */
export function problemType(slug: ProblemSlug): string {
  return PROBLEM_TYPES[slug].type;
}

/** The headers the problems of a group carry: on every answer, or only on some. */
export function problemHeaders(slugs: readonly ProblemSlug[]): {
  always: string[];
  sometimes: string[];
} {
  const sources = slugs.flatMap((slug) => PROBLEM_TYPES[slug].sources);
  const names = [...new Set(sources.flatMap((source) => Object.keys(source.headers ?? {})))];
  const always = names.filter((name) => sources.every((source) => source.headers?.[name]));
  return { always, sometimes: names.filter((name) => !always.includes(name)) };
}

/** The members beyond RFC 9457's that a problem type's answers carry. */
export function problemMembers(slug: ProblemSlug): string[] {
  const sources = PROBLEM_TYPES[slug].sources;
  return [...new Set(sources.flatMap((source) => Object.keys(source.members ?? {})))];
}

/** Makes a message safe inside a quoted-string of a header (RFC 9110 §5.6.4). */
function quoted(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "'");
}
