import type { ApiModule, Endpoint } from "../http/api_module.ts";
import { problemResponse } from "../http/problem.ts";

/**
 * A module whose every answer carries `Log-Seq` (contract §8): a handler's own value (a write's
 * event) or else `appliedSeq()`, the newest event the read model reflects; one header per answer.
 */
export function withLogSeq(module: ApiModule, appliedSeq: () => number): ApiModule {
  const wrap = (endpoint: Endpoint): Endpoint => ({
    scope: endpoint.scope,
    handler: (request, context) => {
      const seq = appliedSeq();
      const mark = (response: Response) => {
        if (!response.headers.has("log-seq")) response.headers.set("log-seq", String(seq));
        return response;
      };
      const failed = (error: unknown) => {
        const response = problemResponse(error, context.requestId);
        // An unexpected error goes on to the app, which logs it.
        if (response.status === 500) throw error;
        return mark(response);
      };
      try {
        const result = endpoint.handler(request, context);
        return result instanceof Promise ? result.then(mark, failed) : mark(result);
      } catch (error) {
        return failed(error);
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
