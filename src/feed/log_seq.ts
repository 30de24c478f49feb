import type { ApiModule, Endpoint } from "../http/api_module.ts";

/** A module whose every answer carries `Log-Seq` (contract §8), set in context.headers. */
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
