import { type Span, type SpanContext, SpanStatusCode, trace } from "@opentelemetry/api";

/**
 * The server span Deno.serve makes for every request (it is the active span in the handler):
 * named by the route, never the path, so no id or token reaches a span name.
 */
export class RequestSpans {
  #templates = new Map<string, string>();
  /** Requests answered: work they started later (a webhook loop, a compaction) is not theirs. */
  #over = new WeakSet<Span>();

  /** At each request's end, in its context: `GET /api/customers/{id}`, unmatched ones `GET`. */
  readonly finished = (requestId: string, method: string, route: string, status: number) => {
    const span = trace.getActiveSpan();
    if (span === undefined) return;
    if (route !== "unmatched") {
      const template = this.#template(route);
      span.updateName(`${method} ${template}`);
      span.setAttribute("http.route", template);
    }
    span.setAttribute("request_id", requestId);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    this.#over.add(span);
  };

  /** The trace and span id of the request being handled, for its log lines; else undefined. */
  readonly ids = (): SpanContext | undefined => {
    const span = trace.getActiveSpan();
    return span === undefined || this.#over.has(span) ? undefined : span.spanContext();
  };

  /** `/api/customers/:id` as OpenTelemetry writes a route: `/api/customers/{id}`. */
  #template(route: string): string {
    let template = this.#templates.get(route);
    if (template === undefined) {
      template = route.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
      this.#templates.set(route, template);
    }
    return template;
  }
}
