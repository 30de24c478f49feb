/** One broken field rule, located by a JSON pointer (RFC 6901). */
export interface Violation {
  pointer: string;
  detail: string;
}

/** A request body breaks one or more field rules. */
export class ValidationError extends Error {
  readonly violations: Violation[];
  constructor(violations: Violation[]) {
    super(`The customer is invalid in ${violations.length} place(s)`);
    this.name = "ValidationError";
    this.violations = violations;
  }
}

/** No live customer has the given id. */
export class CustomerNotFoundError extends Error {
  constructor(id: string) {
    super(`No customer with id "${id}"`);
    this.name = "CustomerNotFoundError";
  }
}

/** Another live customer already uses the email address. */
export class EmailTakenError extends Error {
  constructor(email: string) {
    super(`The email "${email}" is already used by another customer`);
    this.name = "EmailTakenError";
  }
}

/** The client's expected version (If-Match) is not the current one. */
export class VersionMismatchError extends Error {
  constructor(actual: number) {
    super(`If-Match does not match the current ETag "${actual}"`);
    this.name = "VersionMismatchError";
  }
}

/** An idempotency key was reused with a different request body. */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super("This Idempotency-Key was already used with a different request body");
    this.name = "IdempotencyKeyReusedError";
  }
}

/** A request with the same idempotency key is still being processed. */
export class IdempotencyKeyInFlightError extends Error {
  constructor() {
    super("A request with this Idempotency-Key is still in flight; retry later");
    this.name = "IdempotencyKeyInFlightError";
  }
}
