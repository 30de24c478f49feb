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

/** A compiled pathname pattern; `segments` is the pathname split on "/", when already split. */
type Matcher = (pathname: string, segments?: readonly string[]) => Params | null;

interface CompiledRoute<H> {
  pathname: string;
  match: Matcher;
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
        match: compile(route.pathname),
        methods: route.methods,
        allow,
      };
    });
  }

  /** Finds the handler for a request; the pathname is matched as a string, which is fast. */
  match(method: string, pathname: string): RouteMatch<H> {
    const segments = pathname.split("/"); // once for every route tried
    for (const route of this.#routes) {
      const params = route.match(pathname, segments);
      if (params === null) continue;
      const handler = route.methods[method] ?? (method === "HEAD" ? route.methods.GET : undefined);
      if (handler === undefined) {
        return { kind: "method_not_allowed", allow: route.allow, route: route.pathname };
      }
      return { kind: "found", handler, params, route: route.pathname };
    }
    return { kind: "not_found" };
  }
}

/** Literal segments and `:name` segments only: the shape the segment matcher handles. */
const SIMPLE = /^(\/([A-Za-z0-9_.~-]+|:[A-Za-z_][A-Za-z0-9_]*))+$/;

/** Compiles a URLPattern pathname; a simple one is matched by splitting on "/" (tested equal). */
export function compile(pathname: string): Matcher {
  if (!SIMPLE.test(pathname)) {
    const pattern = new URLPattern({ pathname });
    return (input) => pattern.exec({ pathname: input })?.pathname.groups ?? null;
  }
  const parts = pathname.split("/");
  // A parameter's name per segment, or undefined for a literal one.
  const names = parts.map((part) => part.charCodeAt(0) === 58 ? part.slice(1) : undefined);
  return (input, segments = input.split("/")) => {
    if (segments.length !== parts.length) return null;
    const params: Params = {};
    for (let i = 1; i < parts.length; i++) {
      const name = names[i];
      if (name !== undefined) {
        if (segments[i] === "") return null;
        params[name] = segments[i];
      } else if (parts[i] !== segments[i]) return null;
    }
    return params;
  };
}
