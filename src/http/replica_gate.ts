/** On a shared-log replica: /readyz 503 while the database is unreachable; `Min-Log-Seq` waits. */
import { StoreUnavailableError } from "../store/store_errors.ts";
import { BadRequestError, ReplicaBehindError } from "./errors.ts";
import { problemResponse } from "./problem.ts";
import { requestIdOf } from "./request_id.ts";
import { pathnameOf } from "./request_path.ts";
import { setMandatoryHeaders } from "./mandatory_headers.ts";
import { type LogSeqRule, markLogSeq } from "./log_seq_rule.ts";
import type { StartSpan } from "../lib/trace_span.ts";

export interface ReplicaState {
  /** The last seq applied to the read model. */
  readonly appliedSeq: number;
  /** False while the database cannot be reached. */
  readonly reachable: boolean;
}

export const MIN_LOG_SEQ_WAIT_MS = 5000;

type Handler = (request: Request) => Response | Promise<Response>;

/**
 * Wraps `app` with the readiness and Min-Log-Seq rules; its answers carry `Log-Seq` too. With
 * `span` (tracing on), a wait for Min-Log-Seq is a span of the request's.
 */
export function replicaGate(
  app: Handler,
  replica: ReplicaState,
  waitMs = MIN_LOG_SEQ_WAIT_MS,
  logSeq?: LogSeqRule,
  span?: StartSpan,
) {
  return (request: Request): Response | Promise<Response> => {
    if (pathnameOf(request.url) === "/readyz" && !replica.reachable) {
      return problem(new StoreUnavailableError("the database cannot be reached"), request);
    }
    const header = request.headers.get("min-log-seq");
    if (header === null) return app(request);
    if (!/^\d{1,15}$/.test(header.trim())) {
      const error = new BadRequestError(`Min-Log-Seq must be a whole number (got "${header}")`);
      return problem(error, request);
    }
    const wanted = Number(header.trim());
    if (replica.appliedSeq >= wanted) return app(request);
    const applied = replica.appliedSeq;
    const wait = span?.("replica.min_log_seq_wait", {
      "log_seq.wanted": wanted,
      "log_seq.applied": applied,
    });
    return waitFor(wanted).then((caughtUp) => {
      wait?.set("replica.caught_up", caughtUp);
      wait?.end();
      return caughtUp
        ? app(request)
        : problem(new ReplicaBehindError(wanted, replica.appliedSeq), request);
    });
  };

  /** A problem answer with the headers the app adds to every answer. */
  function problem(error: Error, request: Request): Response {
    const requestId = requestIdOf(request);
    const response = problemResponse(error, requestId);
    setMandatoryHeaders(response.headers, requestId);
    markLogSeq(logSeq, request.url, response.headers);
    return response;
  }

  async function waitFor(wanted: number): Promise<boolean> {
    const until = performance.now() + waitMs;
    while (replica.appliedSeq < wanted) {
      if (performance.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return true;
  }
}
