/** A value a span attribute may hold. */
export type SpanValue = string | number | boolean;

/** A span of the service's own, begun by a StartSpan and ended once. */
export interface TraceSpan {
  /** Sets an attribute: never a token or personal data. */
  set(name: string, value: SpanValue): void;
  /** Marks the span failed; `kind` names the failure (an error's class), none of its values. */
  fail(kind: string): void;
  end(): void;
}

/** Starts a span under the active one (the request's); given only while tracing is on. */
export type StartSpan = (
  name: string,
  attributes?: Readonly<Record<string, SpanValue>>,
) => TraceSpan;

/** A span of a request the service sends: its W3C `traceparent` goes with the request. */
export interface ClientSpan extends TraceSpan {
  readonly traceparent: string;
}

/** Starts a client span in a trace of its own, linked to the commit of the event at `seq`. */
export type StartLinkedSpan = (
  name: string,
  seq: number,
  attributes?: Readonly<Record<string, SpanValue>>,
) => ClientSpan;

/** The name of an error's kind for a span, never its message (which may quote a value). */
export function failureKind(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
