/** A feed cursor points before the oldest retained event: the client must resync. */
export class CursorExpiredError extends Error {
  /** The first seq the feed still serves. */
  readonly oldestSeq: number;
  /** The newest seq of the log. */
  readonly lastSeq: number;

  constructor(after: number, oldestSeq: number, lastSeq: number) {
    super(
      `The events after seq ${after} are past retention; the feed begins at ${oldestSeq}. ` +
        "Resync from the customer list",
    );
    this.name = "CursorExpiredError";
    this.oldestSeq = oldestSeq;
    this.lastSeq = lastSeq;
  }
}

/** A customer version that existed but is past retention. */
export class VersionExpiredError extends Error {
  constructor(id: string, version: number) {
    super(`Version ${version} of customer "${id}" is past retention`);
    this.name = "VersionExpiredError";
  }
}

/** Every event stream slot is taken (MAX_STREAMS). */
export class TooManyStreamsError extends Error {
  constructor(max: number) {
    super(`All ${max} event streams are open; retry later`);
    this.name = "TooManyStreamsError";
  }
}
