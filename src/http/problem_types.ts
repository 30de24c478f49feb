import {
  CustomerNotFoundError,
  EmailTakenError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  ValidationError,
  VersionMismatchError,
} from "../domain/errors.ts";
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

/** A problem's status, title and sources, as a module defines it (the URN is added). */
export type ProblemRow = Omit<ProblemType, "slug" | "type">;

/** One error class's source of a row; each error's own type reaches its functions. */
export const on = <E extends Error>(
  error: ProblemSource<E>["error"],
  more: Omit<ProblemSource<E>, "error"> = {},
) => ({ error, ...more }) as unknown as ProblemSource;
/** A row of the problem table. */
export const row = (status: number, title: string, ...sources: ProblemSource[]): ProblemRow => ({
  status,
  title,
  sources,
});

/** The kernel's own problems: HTTP, tokens, the domain's errors and the store's. */
const KERNEL_ROWS: Record<string, ProblemRow> = {
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
  ),
  "method-not-allowed": row(
    405,
    "Method not allowed",
    on(MethodNotAllowedError, { headers: { "Allow": (error) => error.allow.join(", ") } }),
  ),
  "email-taken": row(409, "Email already in use", on(EmailTakenError)),
  "idempotency-key-in-flight": row(409, "Request in flight", on(IdempotencyKeyInFlightError)),
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
  "replica-behind": row(
    503,
    "Replica behind",
    on(ReplicaBehindError, { headers: { "Retry-After": () => "1" } }),
  ),
  "storage-full": row(507, "Insufficient storage", on(StorageFullError)),
};

/** The slug of a problem type: the last part of its `type` URN. */
export type ProblemSlug = string;

/** Every problem type by slug: the kernel's rows and those modules add; the one table. */
export const PROBLEM_TYPES: Record<ProblemSlug, ProblemType> = {};
let tableChanges = 0;

/** Adds a module's rows (at import); a slug already there (`not-found`) gains the row's sources. */
export function addProblems(rows: Record<ProblemSlug, ProblemRow>): void {
  for (const [slug, added] of Object.entries(rows)) {
    const known = PROBLEM_TYPES[slug];
    if (known === undefined) {
      PROBLEM_TYPES[slug] = { slug, type: `urn:problem-type:customer-api:${slug}`, ...added };
    } else if (known.status !== added.status) {
      throw new Error(`Problem "${slug}" is ${known.status}, not ${added.status}`);
    } else {
      const sources = added.sources.filter((s) => !known.sources.some((k) => k.error === s.error));
      PROBLEM_TYPES[slug] = { ...known, sources: [...known.sources, ...sources] };
    }
  }
  tableChanges++;
}

/** Counts additions to the table, so a lookup built from it knows when to build again. */
export function problemTableChanges(): number {
  return tableChanges;
}

addProblems(KERNEL_ROWS);

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
