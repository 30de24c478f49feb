/** The base of every store error, so callers can map a whole family (for example to 503) at once. */
export class StoreError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreError";
  }
}

/** The store cannot take writes: a write or sync failed, so the bytes on disk are uncertain. */
export class StoreFailedError extends StoreError {
  constructor(cause: unknown) {
    super("The event log failed to write; it takes no more writes", { cause });
    this.name = "StoreFailedError";
  }
}

/** A network store cannot be reached right now; nothing was changed and a retry may succeed. */
export class StoreUnavailableError extends StoreError {
  constructor(cause: unknown) {
    super("The event store cannot be reached; nothing was changed", { cause });
    this.name = "StoreUnavailableError";
  }
}

/** The connection broke while a commit was under way: the change may or may not have been made. */
export class CommitOutcomeUnknownError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super(cause);
    this.message = "The database connection broke during the commit, so the change may have been " +
      "made; read it back before sending it again";
    this.name = "CommitOutcomeUnknownError";
  }
}

/** Another process holds the data directory's lock. */
export class StoreLockedError extends StoreError {
  readonly holder: string;
  constructor(path: string, holder: string) {
    super(
      `The data directory is in use: "${path}" is locked by process ${holder}. ` +
        "Stop that process or choose another DATA_DIR.",
    );
    this.name = "StoreLockedError";
    this.holder = holder;
  }
}

/** The disk is full: the write was rolled back and may be retried once space is free. */
export class StorageFullError extends StoreError {
  constructor(cause: unknown) {
    super("The disk is full; nothing was changed. Retry once space is free", { cause });
    this.name = "StorageFullError";
  }
}

/** A write failed and was rolled back; the store goes on taking writes. */
export class WriteFailedError extends StoreError {
  constructor(cause: unknown) {
    super("The event log could not be written; nothing was changed", { cause });
    this.name = "WriteFailedError";
  }
}

/** The log is damaged where a crash cannot have left it; starting would lose data silently. */
export class CorruptLogError extends StoreError {
  constructor(file: string, line: number, offset: number, reason: string) {
    super(
      `The event log "${file}" is damaged at line ${line} (byte offset ${offset}): ${reason}. ` +
        "Run `deno task verify` for every problem, and restore from a backup.",
    );
    this.name = "CorruptLogError";
  }
}

/** A stream was not at the version an append expected; nothing of the batch was written. */
export class ExpectedVersionConflictError extends StoreError {
  readonly id: string;
  readonly expected: number;
  /** The version the stream is at (0 when it has no event). */
  readonly actual: number;

  constructor(id: string, expected: number, actual: number) {
    super(`The stream "${id}" is at version ${actual}, not the expected ${expected}`);
    this.name = "ExpectedVersionConflictError";
    this.id = id;
    this.expected = expected;
    this.actual = actual;
  }
}

/** The store was closed; it takes no more appends. */
export class StoreClosedError extends StoreError {
  constructor() {
    super("The event store is closed");
    this.name = "StoreClosedError";
  }
}

/** The events after a seq are no longer kept (retention dropped them); reading must restart later. */
export class LogTruncatedError extends StoreError {
  readonly afterSeq: number;
  readonly oldestSeq: number;

  constructor(afterSeq: number, oldestSeq: number) {
    super(`The log no longer holds the events after seq ${afterSeq}; it begins at ${oldestSeq}`);
    this.name = "LogTruncatedError";
    this.afterSeq = afterSeq;
    this.oldestSeq = oldestSeq;
  }
}

/** A store that enforces email uniqueness found the email on another live customer. */
export class EmailInUseError extends StoreError {
  readonly email: string;

  constructor(email: string) {
    super(`The email "${email}" belongs to another live customer`);
    this.name = "EmailInUseError";
    this.email = email;
  }
}

/** A store that enforces idempotency keys already holds a create with this key for this actor. */
export class IdempotencyKeyTakenError extends StoreError {
  readonly actor: string;
  readonly key: string;

  constructor(actor: string, key: string) {
    super(`The idempotency key "${key}" of "${actor}" was already used`);
    this.name = "IdempotencyKeyTakenError";
    this.actor = actor;
    this.key = key;
  }
}
