import type { ApiModule, Endpoint } from "../http/api_module.ts";

/**
 * A module whose every answer carries `Log-Seq` (contract §8): a handler's own value (a write's
 * event) or else `appliedSeq()` as it was when the handler started, the newest event the read
 * model reflects; one header per answer. The value goes into the handler's context.headers,
 * which context.respond builds into its answer and the app adds to any other answer lacking it
 * (an error's included): no promise or closure per request here.
 */
export function withLogSeq(module: ApiModule, appliedSeq: () => number): ApiModule {
  const wrap = (endpoint: Endpoint): Endpoint => ({
    scope: endpoint.scope,
    handler: (request, context) => {
      context.headers["log-seq"] = String(appliedSeq());
      return endpoint.handler(request, context);
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
