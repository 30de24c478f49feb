/** Path parameters captured by a route pattern. */
export type Params = Record<string, string | undefined>;

/** One row of the route table: a URLPattern pathname and a handler per method. */
export interface Route<H> {
  pathname: string;
  methods: Partial<Record<string, H>>;
}

/** What the router found: a handler, no such path (404), or a wrong method (405). */
export type RouteMatch<H> =
  | { kind: "found"; handler: H; params: Params; route: string }
  | { kind: "not_found" }
  | { kind: "method_not_allowed"; allow: string[]; route: string };

interface CompiledRoute<H> {
  pathname: string;
  pattern: URLPattern;
  methods: Partial<Record<string, H>>;
  allow: string[];
}

/** Matches a method and pathname against a route table; HEAD falls back to GET. */
export class Router<H> {
  #routes: CompiledRoute<H>[];

  constructor(routes: readonly Route<H>[]) {
    this.#routes = routes.map((route) => {
      const allow = Object.keys(route.methods);
      if (route.methods.GET !== undefined && route.methods.HEAD === undefined) allow.push("HEAD");
      return {
        pathname: route.pathname,
        pattern: new URLPattern({ pathname: route.pathname }),
        methods: route.methods,
        allow,
      };
    });
  }

  /** Finds the handler for a request; the pathname is matched as a string, which is fast. */
  match(method: string, pathname: string): RouteMatch<H> {
    for (const route of this.#routes) {
      const result = route.pattern.exec({ pathname });
      if (result === null) continue;
      const handler = route.methods[method] ?? (method === "HEAD" ? route.methods.GET : undefined);
      if (handler === undefined) {
        return { kind: "method_not_allowed", allow: route.allow, route: route.pathname };
      }
      return { kind: "found", handler, params: result.pathname.groups, route: route.pathname };
    }
    return { kind: "not_found" };
  }
}
