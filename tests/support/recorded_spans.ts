/** Span hooks that record what code under test tells them, for unit tests of where spans go. */
import type {
  ClientSpan,
  SpanValue,
  StartLinkedSpan,
  StartSpan,
} from "../../src/lib/trace_span.ts";
import type { CommitTrace, TracedGroup } from "../../src/store/commit_trace.ts";

/** One span as the code under test made it. */
export interface RecordedSpan {
  name: string;
  attributes: Record<string, SpanValue>;
  failed?: string;
  ended: boolean;
  /** The seq whose commit a linked span was linked to (0: none). */
  seq?: number;
  traceparent?: string;
}

/** A StartSpan and a StartLinkedSpan that keep every span they start. */
export class RecordedSpans {
  readonly spans: RecordedSpan[] = [];

  readonly start: StartSpan = (name, attributes) => this.#begin(name, attributes);

  readonly linked: StartLinkedSpan = (name, seq, attributes) => {
    const traceparent = `00-${"1".repeat(32)}-${String(this.spans.length).padStart(16, "0")}-01`;
    return Object.assign(this.#begin(name, attributes, seq, traceparent), { traceparent });
  };

  named(name: string): RecordedSpan[] {
    return this.spans.filter((span) => span.name === name);
  }

  #begin(
    name: string,
    attributes: Readonly<Record<string, SpanValue>> = {},
    seq?: number,
    traceparent?: string,
  ): ClientSpan {
    const span: RecordedSpan = { name, attributes: { ...attributes }, ended: false, seq };
    if (traceparent !== undefined) span.traceparent = traceparent;
    this.spans.push(span);
    return {
      traceparent: traceparent ?? "",
      set: (key, value) => void (span.attributes[key] = value),
      fail: (kind) => void (span.failed = kind),
      end: () => {
        if (span.ended) throw new Error(`span ${name} ended twice`);
        span.ended = true;
      },
    };
  }
}

/** A CommitTrace that keeps each group it is told of; its tokens count the appends queued. */
export class RecordedCommits implements CommitTrace {
  readonly groups: TracedGroup[] = [];
  #queued = 0;

  queued(): unknown {
    return `append-${++this.#queued}`;
  }

  committed(group: TracedGroup): void {
    this.groups.push(group);
  }
}
