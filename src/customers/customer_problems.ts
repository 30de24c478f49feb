import { addProblems, on, row } from "../http/problem_types.ts";
import { InvalidQueryError } from "../search/query_errors.ts";
import { WriteContendedError } from "./write_contention.ts";

/** How the customers' own errors answer beyond the domain's: a bad search, a write's lost race. */
addProblems({
  "invalid-query": row(
    400,
    "Invalid query",
    on(InvalidQueryError, {
      members: { errors: (error) => [{ pointer: "/query", detail: error.message }] },
    }),
  ),
  "write-contended": row(
    503,
    "Write contended",
    on(WriteContendedError, { headers: { "Retry-After": () => "1" } }),
  ),
});
