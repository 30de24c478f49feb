import { ServiceStartingError } from "./errors.ts";
import { JSON_TYPE } from "./media_types.ts";
import { problemResponse } from "./problem.ts";
import { requestIdOf } from "./request_id.ts";
import { pathnameOf } from "./request_path.ts";
import { setMandatoryHeaders } from "./mandatory_headers.ts";
import { type LogSeqRule, markLogSeq } from "./log_seq_rule.ts";

/** The handler while the log replays: /healthz 200, all else 503 `starting` with Retry-After. */
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
