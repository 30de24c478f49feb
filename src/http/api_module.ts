import type { Params, Route } from "./router.ts";

/** The verified caller; its `sub` is recorded as the actor of changes. */
export interface Principal {
  sub: string;
  scopes: ReadonlySet<string>;
}

/** What a handler gets besides the request. */
export interface HandlerContext {
  url: URL;
  params: Params;
  requestId: string;
  principal: Principal;
  /** The headers every answer to this request carries (request id, rate limit, CORS, Log-Seq). */
  headers: Record<string, string>;
  /** An answer with `headers` and the handler's own, complete as built: Deno sends it fast. */
  respond(body: BodyInit | null, status: number, own: Record<string, string>): Response;
}

/** A module's route handler; it runs only for a caller holding its endpoint's scope. */
export type Handler = (request: Request, context: HandlerContext) => Promise<Response> | Response;

/** One method of a module's route: the scope the caller needs, checked before the handler runs. */
export interface Endpoint {
  scope: string;
  handler: Handler;
}

/** What a module adds to the OpenAPI document; plain OpenAPI 3.1 objects. */
export interface ApiDescription {
  paths: Record<string, Record<string, unknown>>;
  scopes: Record<string, string>;
  tags?: { name: string; description: string }[];
  /** Components of its own, merged into the document's (each name may be defined once). */
  components?: Partial<Record<"schemas" | "parameters" | "headers", Record<string, unknown>>>;
}

/** A route anyone may call, without a token: a page or a file of one, not an API operation. */
export type PublicHandler = (request: Request) => Response | Promise<Response>;

/** A feature plugged into the app: its route rows and their description. */
export interface ApiModule extends ApiDescription {
  routes: readonly Route<Endpoint>[];
  /** Rows served without the auth gate and left out of the API description (the console). */
  publicRoutes?: readonly Route<PublicHandler>[];
}

type Operation = { security?: Record<string, string[]>[] };

/** A module the app cannot plug in: its rows and description disagree or collide with another's. */
export class InvalidModuleError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "InvalidModuleError";
  }
}

/** Checks that a module documents exactly the methods it routes, each with its endpoint's scope. */
export function checkModule(module: ApiModule): void {
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(module.paths)) {
    for (const method of Object.keys(item)) {
      if (method !== "parameters") documented.add(`${method.toUpperCase()} ${path}`);
    }
  }
  for (const route of module.routes) {
    const path = route.pathname.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
    const { GET, HEAD = GET } = route.methods;
    for (const [method, endpoint] of Object.entries({ ...route.methods, HEAD })) {
      if (endpoint === undefined) continue;
      const name = `${method} ${path}`;
      const operation = module.paths[path]?.[method.toLowerCase()] as Operation | undefined;
      if (operation === undefined) throw new InvalidModuleError(`"${name}" is not documented`);
      const scopes = (operation.security ?? []).flatMap((entry) => Object.values(entry).flat());
      if (scopes.length !== 1 || scopes[0] !== endpoint.scope) {
        throw new InvalidModuleError(
          `"${name}" requires "${endpoint.scope}" but is documented with "${scopes.join(" ")}"`,
        );
      }
      if (module.scopes[endpoint.scope] === undefined) {
        throw new InvalidModuleError(
          `"${name}" requires the undeclared scope "${endpoint.scope}"`,
        );
      }
      documented.delete(name);
    }
  }
  for (const name of documented) {
    throw new InvalidModuleError(`"${name}" is documented, not routed`);
  }
}
