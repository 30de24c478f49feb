import type { Authenticate } from "./http/auth.ts";
import { customerHandlers, type Handler, JSON_TYPE } from "./http/customer_handlers.ts";
import { MethodNotAllowedError, RouteNotFoundError } from "./http/errors.ts";
import { problemResponse } from "./http/problem.ts";
import { requestIdOf } from "./http/request_id.ts";
import { type Route, Router } from "./http/router.ts";
import type { CustomerService } from "./service/customer_service.ts";

/** Everything the HTTP handler is built from. */
export interface AppDeps {
  service: CustomerService;
  authenticate: Authenticate;
  /** The request body limit in bytes. */
  maxBodyBytes: number;
  /** Receives unexpected errors (the client only sees a generic 500). */
  onError?: (error: unknown, requestId: string) => void;
}

type PublicHandler = (request: Request) => Response;

/** Builds the request handler: route table, auth in front, one error boundary. */
export function createHandler(deps: AppDeps): (request: Request) => Promise<Response> {
  const customers = customerHandlers(deps.service, deps.maxBodyBytes);
  const api = new Router<Handler>(
    [
      { pathname: "/api/customers", methods: { GET: customers.list, POST: customers.create } },
      {
        pathname: "/api/customers/:id",
        methods: {
          GET: customers.read,
          PUT: customers.replace,
          PATCH: customers.patch,
          DELETE: customers.remove,
        },
      },
    ] satisfies Route<Handler>[],
  );
  const open = new Router<PublicHandler>([
    { pathname: "/healthz", methods: { GET: () => status("ok") } },
    { pathname: "/readyz", methods: { GET: () => status("ready") } },
  ]);

  return async (request) => {
    const requestId = requestIdOf(request);
    let response: Response;
    try {
      response = await route(request, requestId);
    } catch (error) {
      response = problemResponse(error, requestId);
      if (response.status >= 500) deps.onError?.(error, requestId);
    }
    response.headers.set("x-request-id", requestId);
    response.headers.set("x-content-type-options", "nosniff");
    if (request.method === "HEAD" && response.body !== null) {
      await response.body.cancel();
      return new Response(null, { status: response.status, headers: response.headers });
    }
    return response;
  };

  async function route(request: Request, requestId: string): Promise<Response> {
    const url = new URL(request.url);
    const found = api.match(request.method, url.pathname);
    if (found.kind === "found") {
      const principal = await deps.authenticate(request);
      return await found.handler(request, { url, params: found.params, requestId, principal });
    }
    const other = found.kind === "not_found" ? open.match(request.method, url.pathname) : found;
    if (other.kind === "found") return other.handler(request);
    if (other.kind === "method_not_allowed") {
      throw new MethodNotAllowedError(request.method, other.allow);
    }
    throw new RouteNotFoundError(url.pathname);
  }
}

function status(text: string): Response {
  return new Response(JSON.stringify({ status: text }), { headers: { "content-type": JSON_TYPE } });
}
