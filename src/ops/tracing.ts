import { type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { Config } from "../config.ts";
import type { ClientSpan, SpanValue, StartLinkedSpan, StartSpan } from "../lib/trace_span.ts";
import { CommitSpans } from "./commit_spans.ts";
import { RequestSpans } from "./request_spans.ts";

/** The tracer of the service's own spans (the runtime's are in the scope `deno`). */
const SCOPE = "customer-api";

/** The service's spans on the runtime's OpenTelemetry (OTEL_DENO=true); all absent when off. */
export interface Tracing {
  /** A child of the request's span: the token check, the Min-Log-Seq wait, a search. */
  span?: StartSpan;
  /** Each request's server span named by its route (app.ts), and its ids for log lines. */
  requests?: RequestSpans;
  /** The group commits' spans (store/commit_trace.ts). */
  commits?: CommitSpans;
  /** A webhook delivery attempt's client span, linked to its event's commit. */
  linked?: StartLinkedSpan;
}

/** The hooks when OTEL_DENO is on; off, none at all (not even a no-op call per request). */
export function openTracing(config: Pick<Config, "otel">): Tracing {
  if (!config.otel.enabled) return {};
  const tracer = trace.getTracer(SCOPE);
  const commits = new CommitSpans(tracer);
  return {
    span: (name, attributes) => new OwnSpan(tracer.startSpan(name, { attributes })),
    requests: new RequestSpans(),
    commits,
    linked: (name, seq, attributes) => linkedSpan(tracer, commits, name, seq, attributes),
  };
}

function linkedSpan(
  tracer: Tracer,
  commits: CommitSpans,
  name: string,
  seq: number,
  attributes?: Readonly<Record<string, SpanValue>>,
): ClientSpan {
  const commit = seq > 0 ? commits.commitOf(seq) : undefined;
  const span = tracer.startSpan(name, {
    kind: SpanKind.CLIENT,
    root: true,
    attributes,
    links: commit === undefined ? [] : [{ context: commit }],
  });
  const { traceId, spanId, traceFlags } = span.spanContext();
  const flags = traceFlags.toString(16).padStart(2, "0");
  return Object.assign(new OwnSpan(span), { traceparent: `00-${traceId}-${spanId}-${flags}` });
}

/** An OpenTelemetry span behind the service's own span interface. */
class OwnSpan {
  #span: Span;

  constructor(span: Span) {
    this.#span = span;
  }

  set(name: string, value: SpanValue): void {
    this.#span.setAttribute(name, value);
  }

  fail(kind: string): void {
    this.#span.setAttribute("error.type", kind);
    this.#span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
  }

  end(): void {
    this.#span.end();
  }
}
