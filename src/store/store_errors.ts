/** The store cannot take writes: a write or sync failed, so the bytes on disk are uncertain. */
export class StoreFailedError extends Error {
  constructor(cause: unknown) {
    super("The event log failed to write; it takes no more writes", { cause });
    this.name = "StoreFailedError";
  }
}

/** Another process holds the data directory's lock. */
export class StoreLockedError extends Error {
  /** The PID written by the process that holds the lock. */
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
export class StorageFullError extends Error {
  constructor(cause: unknown) {
    super("The disk is full; nothing was changed. Retry once space is free", { cause });
    this.name = "StorageFullError";
  }
}

/** A write failed and was rolled back; the store goes on taking writes. */
export class WriteFailedError extends Error {
  constructor(cause: unknown) {
    super("The event log could not be written; nothing was changed", { cause });
    this.name = "WriteFailedError";
  }
}
