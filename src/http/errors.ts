/** The request body is not valid JSON or not valid UTF-8. */
export class MalformedBodyError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "MalformedBodyError";
  }
}

/** Background maintenance (compaction) failed several times in a row. */
export class MaintenanceFailingError extends Error {
  constructor(failures: number, cause: string) {
    super(`The last ${failures} compactions failed; the last one: ${cause}`);
    this.name = "MaintenanceFailingError";
  }
}

/** The request body is larger than the limit. */
export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`The request body is larger than ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** The request body did not arrive within the body timeout. */
export class BodyTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The request body did not arrive within ${timeoutMs} ms`);
    this.name = "BodyTimeoutError";
  }
}

/** The request body's media type is missing or not accepted. */
export class UnsupportedMediaTypeError extends Error {
  readonly accepted: readonly string[];
  constructor(got: string | null, accepted: readonly string[]) {
    super(
      got === null
        ? `Content-Type is missing; send ${accepted.join(" or ")}`
        : `Content-Type "${got}" is not accepted; send ${accepted.join(" or ")}`,
    );
    this.name = "UnsupportedMediaTypeError";
    this.accepted = accepted;
  }
}

/** A query parameter or header has a value the endpoint cannot use. */
export class BadRequestError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "BadRequestError";
  }
}

/** No route has this path. */
export class RouteNotFoundError extends Error {
  constructor(pathname: string) {
    super(`No resource at "${pathname}"`);
    this.name = "RouteNotFoundError";
  }
}

/** The path exists but not with this method. */
export class MethodNotAllowedError extends Error {
  readonly allow: readonly string[];
  constructor(method: string, allow: readonly string[]) {
    super(`Method "${method}" is not allowed here; use ${allow.join(", ")}`);
    this.name = "MethodNotAllowedError";
    this.allow = allow;
  }
}

/** The request carries no bearer token. */
export class MissingCredentialsError extends Error {
  constructor() {
    super("This resource needs a bearer token in the Authorization header");
    this.name = "MissingCredentialsError";
  }
}

/** The bearer token is malformed, expired or not verifiable; the message is safe to show. */
export class InvalidTokenError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "InvalidTokenError";
  }
}

/** The token is valid but lacks the scope the operation needs. */
export class InsufficientScopeError extends Error {
  readonly scope: string;
  constructor(scope: string) {
    super(`The token lacks the scope "${scope}"`);
    this.name = "InsufficientScopeError";
    this.scope = scope;
  }
}

/** The remote key set cannot be fetched, so the token cannot be checked now (503, not 401). */
export class KeySetUnavailableError extends Error {
  constructor() {
    super("The keys to verify tokens are unavailable; retry later");
    this.name = "KeySetUnavailableError";
  }
}

/** The server is replaying its event log and answers nothing but `/healthz` yet. */
export class ServiceStartingError extends Error {
  constructor() {
    super("The service is starting (replaying its event log); retry shortly");
    this.name = "ServiceStartingError";
  }
}

/** The caller used up its rate limit. */
export class RateLimitedError extends Error {
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super(`Too many requests; retry after ${retryAfter} s`);
    this.name = "RateLimitedError";
    this.retryAfter = retryAfter;
  }
}

/** A CORS preflight from an origin that is not on the allow-list. */
export class OriginNotAllowedError extends Error {
  constructor(origin: string) {
    super(`Origin "${origin}" is not allowed`);
    this.name = "OriginNotAllowedError";
  }
}

/** This replica has not applied the log up to the seq a Min-Log-Seq header asked for in time. */
export class ReplicaBehindError extends Error {
  constructor(wanted: number, applied: number) {
    super(
      `This replica has applied the log up to seq ${applied}, not yet ${wanted}; retry shortly`,
    );
    this.name = "ReplicaBehindError";
  }
}
