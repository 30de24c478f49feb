import type { ApiModule, Endpoint, HandlerContext } from "../http/api_module.ts";
import { problemResponse } from "../http/problem.ts";

/**
 * A module whose every answer carries `Log-Seq` (contract §8): a handler's own value (a write's
 * event) or else `appliedSeq()`, the newest event the read model reflects; one header per answer.
 */
export function withLogSeq(module: ApiModule, appliedSeq: () => number): ApiModule {
  // No closure per request: the synchronous path (a cached token, a read) allocates nothing more.
  const wrap = (endpoint: Endpoint): Endpoint => ({
    scope: endpoint.scope,
    handler: (request, context) => {
      const seq = appliedSeq();
      // An answer built by context.respond carries it from here; others get it below.
      context.headers["log-seq"] = String(seq);
      try {
        const result = endpoint.handler(request, context);
        if (!(result instanceof Promise)) return marked(result, seq, context);
        return result.then(
          (response) => marked(response, seq, context),
          (error) => failed(error, seq, context.requestId),
        );
      } catch (error) {
        return failed(error, seq, context.requestId);
      }
    },
  });
  const routes = module.routes.map((route) => ({
    pathname: route.pathname,
    methods: Object.fromEntries(
      Object.entries(route.methods).map(([method, endpoint]) => [method, wrap(endpoint!)]),
    ),
  }));
  return { ...module, routes };
}

/** The response with `Log-Seq: seq`, unless its handler set its own (a write's event). */
function marked(response: Response, seq: number, context?: HandlerContext): Response {
  // An answer built by context.respond has it already; reading its headers would cost.
  if (context?.responded === response) return response;
  if (!response.headers.has("log-seq")) response.headers.set("log-seq", String(seq));
  return response;
}

/** A handler's client error as its problem answer with `Log-Seq`; an unexpected one goes on. */
function failed(error: unknown, seq: number, requestId: string): Response {
  const response = problemResponse(error, requestId);
  // An unexpected error goes on to the app, which logs it.
  if (response.status === 500) throw error;
  return marked(response, seq);
}
