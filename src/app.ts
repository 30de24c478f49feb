import { type LogSeqRule, markLogSeq } from "./http/log_seq_rule.ts";
import { type Authenticate, requireScope } from "./auth/authenticator.ts";
import type { CorsPolicy } from "./http/cors.ts";
import {
  type ApiModule,
  checkModule,
  type Endpoint,
  type Principal,
  type PublicHandler,
} from "./http/api_module.ts";
import { JSON_TYPE } from "./http/media_types.ts";
import { pathnameOf } from "./http/request_path.ts";
import { docsPage } from "./openapi/docs_page.ts";
import {
  MethodNotAllowedError,
  OriginNotAllowedError,
  RateLimitedError,
  RouteNotFoundError,
} from "./http/errors.ts";
import type { Metrics } from "./ops/metrics.ts";
import { buildOpenApiDocument } from "./openapi/openapi.ts";
import { openApiHandler } from "./openapi/served_document.ts";
import { problemResponse } from "./http/problem.ts";
import type { RateLimiter } from "./http/rate_limit.ts";
import { requestIdOf } from "./http/request_id.ts";
import { type Params, Router } from "./http/router.ts";
import { type Completion, RequestContext } from "./http/request_context.ts";
import { mandatoryHeaders, setMandatoryHeaders } from "./http/mandatory_headers.ts";

/** Receives one finished request for the access log (positional: the hot path allocates none). */
export type RequestObserver = (
  requestId: string,
  method: string,
  route: string,
  status: number,
  durationMs: number,
) => void;

/** Everything the HTTP handler is built from. */
export interface AppDeps {
  /** The features behind the auth gate, each with its routes, scopes and description. */
  modules: readonly ApiModule[];
  authenticate: Authenticate;
  /** Receives unexpected errors, those answered 500 (the client sees a generic message). */
  onError?: (error: unknown, requestId: string) => void;
  onRequest?: RequestObserver;
  metrics?: Metrics;
  rateLimiter?: RateLimiter;
  cors?: CorsPolicy;
  /** The OpenAPI `servers` URL (PUBLIC_URL); none means the origin each request was sent to. */
  publicUrl?: string;
  /** Why /readyz answers 503 while serving (failing background work); none means ready. */
  notReady?: () => Error | undefined;
  /** `Log-Seq` for the error answers under these paths that no handler marked (401, 403, 429…). */
  logSeq?: LogSeqRule;
  /** Told of each finished request in its own context, to name its span (tracing on). */
  traceRequest?: RequestObserver;
}

/** What routing learned about a request, for the headers and the log. */
interface Outcome extends Completion {
  route: string;
  rateHeaders?: Record<string, string>;
  /** The headers gathered for the handler (HandlerContext.headers), once it was dispatched. */
  headers?: Record<string, string>;
}

/** Builds the request handler: module routes behind the auth gate, public routes, one boundary. */
export function createHandler(
  deps: AppDeps,
): (request: Request) => Response | Promise<Response> {
  for (const module of deps.modules) checkModule(module);
  const api = new Router<Endpoint>(deps.modules.flatMap((module) => module.routes));
  const document = buildOpenApiDocument(deps.modules);
  const open = new Router<PublicHandler>([
    { pathname: "/healthz", methods: { GET: () => status("ok") } },
    { pathname: "/readyz", methods: { GET: readiness } },
    { pathname: "/metrics", methods: { GET: metricsPage } },
    // The API description (contract §7): assembled once from the modules' parts.
    { pathname: "/api/openapi.json", methods: { GET: openApiHandler(document, deps.publicUrl) } },
    { pathname: "/docs", methods: { GET: docsPage(document) } },
    ...deps.modules.flatMap((module) => module.publicRoutes ?? []),
  ]);

  function readiness(request: Request): Response {
    const problem = deps.notReady?.();
    return problem === undefined ? status("ready") : problemResponse(problem, requestIdOf(request));
  }

  function metricsPage(): Response {
    const body = deps.metrics?.render() ?? "";
    return new Response(body, {
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
    });
  }

  // The handler stays synchronous whenever every step is (a cached token, a read): Deno.serve
  // answers a synchronous Response on its fast path, and no promise is made per request.
  return (request) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const outcome: Outcome = { route: "unmatched" };
    let result: Response | Promise<Response>;
    try {
      result = route(request, requestId, outcome);
    } catch (error) {
      result = failed(error, requestId);
    }
    if (!(result instanceof Promise)) return finish(request, result, requestId, outcome, started);
    return result.then(
      (response) => finish(request, response, requestId, outcome, started),
      (error) => finish(request, failed(error, requestId), requestId, outcome, started),
    );
  };

  function failed(error: unknown, requestId: string): Response {
    const response = problemResponse(error, requestId);
    // Only a 500 is unexpected; a 503 or 507 is a known condition that its own code logs.
    if (response.status === 500) deps.onError?.(error, requestId);
    return response;
  }

  /** Adds the headers every response carries, observes the request, and empties a HEAD answer. */
  function finish(
    request: Request,
    response: Response,
    requestId: string,
    outcome: Outcome,
    started: number,
  ): Response {
    // Reading response.headers would make Deno drop the native answer it prepared.
    if (outcome.complete !== response) {
      const headers = response.headers;
      setMandatoryHeaders(headers, requestId);
      if (outcome.rateHeaders !== undefined) {
        for (const [name, value] of Object.entries(outcome.rateHeaders)) headers.set(name, value);
      }
      deps.cors?.decorate(request.headers.get("origin"), headers);
      // What a wrapping layer added for the handler (Log-Seq), unless the answer has its own.
      if (outcome.headers !== undefined) addMissing(headers, outcome.headers);
      // Only error answers are looked at: every success of these paths comes marked by its module.
      if (response.status >= 400) markLogSeq(deps.logSeq, request.url, headers);
    }
    if (request.method === "HEAD" && response.body !== null) {
      response.body.cancel();
      response = new Response(null, { status: response.status, headers: response.headers });
    }
    const seconds = (performance.now() - started) / 1000;
    deps.metrics?.observeRequest(outcome.route, request.method, response.status, seconds);
    const ms = Math.round(seconds * 1e6) / 1000;
    deps.onRequest?.(requestId, request.method, outcome.route, response.status, ms);
    deps.traceRequest?.(requestId, request.method, outcome.route, response.status, ms);
    return response;
  }

  /** Rate-limits the caller, checks the endpoint's scope, then runs its handler. */
  function dispatch(
    found: { handler: Endpoint; params: Params },
    request: Request,
    requestId: string,
    outcome: Outcome,
    principal: Principal,
  ): Response | Promise<Response> {
    if (deps.rateLimiter !== undefined) {
      const decision = deps.rateLimiter.take(principal.sub);
      outcome.rateHeaders = deps.rateLimiter.headers(decision);
      if (!decision.allowed) throw new RateLimitedError(decision.retryAfter);
    }
    const endpoint = found.handler;
    requireScope(principal, endpoint.scope);
    const headers = mandatoryHeaders(requestId);
    if (outcome.rateHeaders !== undefined) Object.assign(headers, outcome.rateHeaders);
    if (deps.cors !== undefined) {
      Object.assign(headers, deps.cors.headersFor(request.headers.get("origin")));
    }
    outcome.headers = headers;
    return endpoint.handler(
      request,
      new RequestContext(request, found.params, requestId, principal, headers, outcome),
    );
  }

  function route(
    request: Request,
    requestId: string,
    outcome: Outcome,
  ): Response | Promise<Response> {
    const pathname = pathnameOf(request.url);
    const found = api.match(request.method, pathname);
    if (found.kind === "found") {
      outcome.route = found.route;
      const principal = deps.authenticate(request);
      if (principal instanceof Promise) {
        return principal.then((caller) => dispatch(found, request, requestId, outcome, caller));
      }
      return dispatch(found, request, requestId, outcome, principal);
    }
    const match = found.kind === "not_found" ? open.match(request.method, pathname) : found;
    if (match.kind === "not_found") throw new RouteNotFoundError(pathname);
    outcome.route = match.route;
    if (match.kind === "found") return match.handler(request);
    if (deps.cors?.isPreflight(request)) {
      const origin = request.headers.get("origin")!;
      if (!deps.cors.allows(origin)) throw new OriginNotAllowedError(origin);
      return deps.cors.preflight(origin, match.allow);
    }
    throw new MethodNotAllowedError(request.method, match.allow);
  }
}

function addMissing(headers: Headers, wanted: Record<string, string>): void {
  for (const name in wanted) if (!headers.has(name)) headers.set(name, wanted[name]);
}

function status(text: string): Response {
  return new Response(JSON.stringify({ status: text }), { headers: { "content-type": JSON_TYPE } });
}
