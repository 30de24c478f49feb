import type { Authenticate } from "./authenticator.ts";
import { failureKind, type StartSpan } from "../lib/trace_span.ts";

/**
 * The bearer-token check as a span `auth.token_check` of the request's, with `auth.cache_hit`:
 * the check answers synchronously only from its cache (createAuthenticator). Without `span`
 * (tracing off) the check itself, unwrapped.
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
