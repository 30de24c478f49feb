/**
 * An OTLP/HTTP receiver of the test's own on loopback, as a collector would be: it takes
 * `/v1/traces` and `/v1/logs` in protobuf (the runtime's default protocol) and decodes every
 * request with the OpenTelemetry protocol definitions of @opentelemetry/otlp-transformer.
 */
import root from "@opentelemetry/otlp-transformer/build/src/generated/root.js";

/** A span as the receiver decoded it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (the protocol's SpanKind). */
  kind: number;
  scope: string;
  service: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  startMs: number;
  endMs: number;
}

// deno-lint-ignore no-explicit-any -- protobufjs' generated messages are walked without types
type Message = any;

// deno-lint-ignore no-explicit-any
const proto = (root as any).opentelemetry.proto;
const EXPORT_TRACES = proto.collector.trace.v1.ExportTraceServiceRequest;
const EXPORT_LOGS = proto.collector.logs.v1.ExportLogsServiceRequest;

/** The receiver: every span it got, and the content types it was sent. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** The bodies of the log records exported (the runtime's own, and captured console output). */
  readonly logBodies: string[] = [];
  readonly contentTypes = new Set<string>();
  /** Requests to each path, `/v1/logs` and `/v1/metrics` too (those are only counted). */
  readonly requests = new Map<string, number>();
  #server: Deno.HttpServer<Deno.NetAddr>;

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#handle(request),
    );
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  async #handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
    const bytes = new Uint8Array(await request.arrayBuffer());
    const type = request.headers.get("content-type") ?? "";
    this.contentTypes.add(type);
    if (path === "/v1/traces" || path === "/v1/logs") {
      if (type !== "application/x-protobuf") return new Response(null, { status: 415 });
    }
    if (path === "/v1/traces") this.spans.push(...decodeSpans(EXPORT_TRACES.decode(bytes)));
    if (path === "/v1/logs") this.logBodies.push(...decodeLogBodies(EXPORT_LOGS.decode(bytes)));
    // An empty ExportTraceServiceResponse: everything was accepted.
    return new Response(new Uint8Array(0), { headers: { "content-type": type } });
  }

  /** Waits until `done` holds for the spans received (polling), or fails after `ms`. */
  async waitFor(done: (spans: ReceivedSpan[]) => boolean, ms = 15_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + ms;
    while (!done(this.spans)) {
      if (Date.now() > deadline) {
        const names = this.spans.map((span) => span.name);
        throw new Error(`No such spans within ${ms} ms; got ${JSON.stringify(names)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.spans;
  }

  async close(): Promise<void> {
    await this.#server.shutdown();
  }
}

function decodeSpans(request: Message): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind,
          scope: scopeSpans.scope?.name ?? "",
          service: String(resource["service.name"]),
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link: Message) => ({
            traceId: hex(link.traceId),
            spanId: hex(link.spanId),
          })),
          status: span.status?.code ?? 0,
          startMs: Number(BigInt(String(span.startTimeUnixNano)) / 1000n) / 1000,
          endMs: Number(BigInt(String(span.endTimeUnixNano)) / 1000n) / 1000,
        });
      }
    }
  }
  return spans;
}

function decodeLogBodies(request: Message): string[] {
  const bodies: string[] = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      for (const record of scopeLogs.logRecords ?? []) bodies.push(String(valueOf(record.body)));
    }
  }
  return bodies;
}

/** Key-value pairs as an object; a key sent twice (an attribute set again) keeps every value. */
function attributesOf(list: Message[] | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const plain = valueOf(value);
    if (!(key in attributes)) attributes[key] = plain;
    else attributes[key] = [attributes[key], plain].flat();
  }
  return attributes;
}

/** An AnyValue: the one field the decoder set on the message itself. */
function valueOf(value: Message): unknown {
  if (value === undefined || value === null) return undefined;
  if (Object.hasOwn(value, "stringValue")) return value.stringValue;
  if (Object.hasOwn(value, "boolValue")) return value.boolValue;
  if (Object.hasOwn(value, "intValue")) return Number(value.intValue);
  if (Object.hasOwn(value, "doubleValue")) return value.doubleValue;
  if (Object.hasOwn(value, "arrayValue")) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function hex(bytes: Uint8Array | null | undefined): string {
  if (bytes === undefined || bytes === null || bytes.length === 0) return "";
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
