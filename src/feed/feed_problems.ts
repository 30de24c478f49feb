import { addProblems, on, row } from "../http/problem_types.ts";
import { CursorExpiredError, TooManyStreamsError, VersionExpiredError } from "./feed_errors.ts";

/** How the feed's errors answer: a cursor or version past retention, too many streams. */
addProblems({
  "cursor-expired": row(
    410,
    "Cursor expired",
    on(CursorExpiredError, {
      members: { oldest_seq: (error) => error.oldestSeq, last_seq: (error) => error.lastSeq },
    }),
  ),
  "version-expired": row(410, "Version past retention", on(VersionExpiredError)),
  "too-many-streams": row(
    503,
    "Too many event streams",
    on(TooManyStreamsError, { headers: { "Retry-After": () => "5" } }),
  ),
});
