import type { Authenticate } from "./authenticator.ts";
import { failureKind, type StartSpan } from "../lib/trace_span.ts";

/**
 * The token check as a span `auth.token_check`; it answers at once only from its cache, so that
 * is `auth.cache_hit`. Without `span` (tracing off), the check itself.
 */
export function tracedTokenCheck(check: Authenticate, span?: StartSpan): Authenticate {
  if (span === undefined) return check;
  return (request) => {
    const traced = span("auth.token_check");
    let result;
    try {
      result = check(request);
    } catch (error) {
      traced.fail(failureKind(error));
      traced.end();
      throw error;
    }
    traced.set("auth.cache_hit", !(result instanceof Promise));
    if (!(result instanceof Promise)) {
      traced.end();
      return result;
    }
    return result.then((principal) => {
      traced.end();
      return principal;
    }, (error) => {
      traced.fail(failureKind(error));
      traced.end();
      throw error;
    });
  };
}
