import {
  type Context,
  context,
  type Span,
  type SpanContext,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import type { CommitTrace, TracedAppend, TracedGroup } from "../store/commit_trace.ts";
import { failureKind } from "../lib/trace_span.ts";

/** Commits remembered for the links of webhook deliveries: about a burst's worth of events. */
const REMEMBERED_EVENTS = 10_000;

/** An append's caller's context, and when it was queued. */
interface Queued {
  context: Context;
  at: number;
}

/** Spans may start at a performance.now() time; OpenTelemetry takes epoch milliseconds. */
export function epochMs(now: number): number {
  return performance.timeOrigin + now;
}

/**
 * Each append's `log.group_wait` and `log.group_commit` as spans of the request that appended,
 * the group's steps as the commit's `<step>_ms` attributes (a span per step and request cost a
 * fifth of a traced POST's throughput); each event's commit is kept for the deliveries' links.
 */
export class CommitSpans implements CommitTrace {
  #tracer: Tracer;
  #commits = new Map<number, SpanContext>();

  constructor(tracer: Tracer) {
    this.#tracer = tracer;
  }

  queued(): Queued {
    return { context: context.active(), at: performance.now() };
  }

  committed(group: TracedGroup): void {
    const events = group.appends.reduce((sum, append) => sum + append.events, 0);
    const attributes: Record<string, string | number> = {
      "log.backend": group.backend,
      "log.group.appends": group.appends.length,
      "log.group.events": events,
    };
    for (const step of group.steps) {
      const key = `${step.name}_ms`;
      const ms = ((attributes[key] as number | undefined) ?? 0) + step.end - step.start;
      attributes[key] = Math.round(ms * 1000) / 1000;
    }
    for (const append of group.appends) {
      const { context: parent, at } = append.token as Queued;
      const tracer = this.#tracer;
      tracer.startSpan("log.group_wait", {
        startTime: epochMs(at),
        attributes: { "log.backend": group.backend },
      }, parent).end(epochMs(group.start));
      const commit = tracer.startSpan("log.group_commit", {
        startTime: epochMs(group.start),
        attributes: { ...attributes, "log.append.events": append.events },
      }, parent);
      this.#outcome(commit, append);
      commit.end(epochMs(group.end));
    }
  }

  /** The commit span of the event at `seq`, while it is remembered. */
  commitOf(seq: number): SpanContext | undefined {
    return this.#commits.get(seq);
  }

  #outcome(commit: Span, append: TracedAppend): void {
    if (append.lastSeq === undefined) {
      const kind = failureKind(append.error);
      commit.setAttribute("error.type", kind);
      commit.setStatus({ code: SpanStatusCode.ERROR, message: kind });
      return;
    }
    commit.setAttribute("log.seq", append.lastSeq);
    const span = commit.spanContext();
    for (let seq = append.lastSeq - append.events + 1; seq <= append.lastSeq; seq++) {
      this.#commits.set(seq, span);
    }
    // A Map iterates in insertion order: the oldest commits go first.
    for (const seq of this.#commits.keys()) {
      if (this.#commits.size <= REMEMBERED_EVENTS) break;
      this.#commits.delete(seq);
    }
  }
}
