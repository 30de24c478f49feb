import { ServiceStartingError } from "./errors.ts";
import { JSON_TYPE } from "./media_types.ts";
import { problemResponse } from "./problem.ts";
import { requestIdOf } from "./request_id.ts";
import { pathnameOf } from "./request_path.ts";
import { setMandatoryHeaders } from "./mandatory_headers.ts";

/**
 * The handler while the event log replays: `/healthz` answers 200 (the process runs), `/readyz`
 * and every other route 503 `starting` with Retry-After, so load balancers wait and clients retry.
 */
export function startupGate(): (request: Request) => Response {
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
    return response;
  };
}
