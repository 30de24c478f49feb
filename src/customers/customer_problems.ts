import { addProblems, on, row } from "../http/problem_types.ts";
import { WriteContendedError } from "./write_contention.ts";

/** How the customers' own errors answer beyond the domain's: a write that kept losing its race. */
addProblems({
  "write-contended": row(
    503,
    "Write contended",
    on(WriteContendedError, { headers: { "Retry-After": () => "1" } }),
  ),
});
