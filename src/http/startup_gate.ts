import { ServiceStartingError } from "./errors.ts";
import { JSON_TYPE } from "./media_types.ts";
import { problemResponse } from "./problem.ts";
import { requestIdOf } from "./request_id.ts";
import { pathnameOf } from "./request_path.ts";
import { setMandatoryHeaders } from "./mandatory_headers.ts";
import { type LogSeqRule, markLogSeq } from "./log_seq_rule.ts";

/**
 * The handler while the event log replays: `/healthz` answers 200 (the process runs), `/readyz`
 * and every other route 503 `starting` with Retry-After, so load balancers wait and clients retry.
 * Answers under the API paths carry `Log-Seq` as the app's do (`logSeq`: 0 until events apply).
 */
export function startupGate(logSeq?: LogSeqRule): (request: Request) => Response {
  return (request) => {
    const requestId = requestIdOf(request);
    const alive = pathnameOf(request.url) === "/healthz" &&
      (request.method === "GET" || request.method === "HEAD");
    const response = alive
      ? new Response(request.method === "HEAD" ? null : JSON.stringify({ status: "ok" }), {
        headers: { "content-type": JSON_TYPE },
      })
      : problemResponse(new ServiceStartingError(), requestId);
    setMandatoryHeaders(response.headers, requestId);
    markLogSeq(logSeq, request.url, response.headers);
    return response;
  };
}
