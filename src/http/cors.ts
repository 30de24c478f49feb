/** Request headers a browser client may send. */
const ALLOW_HEADERS =
  "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Request-Id";
/** Response headers a browser client may read. */
const EXPOSE_HEADERS =
  "ETag, Location, Link, X-Request-Id, Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy";

/** CORS for an allow-list of exact origins: never `*`, no credentials (tokens are not cookies). */
export class CorsPolicy {
  #origins: ReadonlySet<string>;
  constructor(origins: Iterable<string>) {
    this.#origins = new Set(origins);
  }

  /** True when the request's Origin is allowed. */
  allows(origin: string | null): origin is string {
    return origin !== null && this.#origins.has(origin);
  }

  /** True for a preflight: OPTIONS with Origin and Access-Control-Request-Method. */
  isPreflight(request: Request): boolean {
    return request.method === "OPTIONS" && request.headers.has("origin") &&
      request.headers.has("access-control-request-method");
  }

  /** The answer to an allowed preflight for a route that allows `methods`. */
  preflight(origin: string, methods: readonly string[]): Response {
    return new Response(null, {
      status: 204,
      headers: {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": methods.join(", "),
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": "600",
        "vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      },
    });
  }

  /** The CORS headers of an actual (non-preflight) response, for one built with all at once. */
  headersFor(origin: string | null): Record<string, string> {
    if (!this.allows(origin)) return { vary: "Origin" };
    return {
      vary: "Origin",
      "access-control-allow-origin": origin,
      "access-control-expose-headers": EXPOSE_HEADERS,
    };
  }

  /** Adds the CORS headers of an actual (non-preflight) response. */
  decorate(origin: string | null, headers: Headers): void {
    if (!/\bOrigin\b/i.test(headers.get("vary") ?? "")) headers.append("vary", "Origin");
    if (!this.allows(origin)) return;
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-expose-headers", EXPOSE_HEADERS);
  }
}
