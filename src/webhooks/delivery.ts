import type { DeliveryAttempt, WebhookEndpoint } from "../store/webhook_store.ts";
import type { DestinationPolicy } from "./destination.ts";
import { type OpenConnection, postTo } from "./http_post.ts";
import { signatureHeader } from "./signing.ts";
import { activeSecrets } from "./webhook_view.ts";
import type { ClientSpan, StartLinkedSpan } from "../lib/trace_span.ts";

/** One message to deliver: its stable id, type, seq (0 for a ping) and JSON body. */
export interface Message {
  id: string;
  type: string;
  seq: number;
  body: string;
  /** The body as UTF-8, encoded once for every endpoint it goes to. */
  bytes?: Uint8Array;
}

/** How one attempt ended, ready for the deliveries log. */
export interface AttemptResult {
  ok: boolean;
  /** The receiver answered 410 Gone: it wants no more deliveries. */
  gone: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Signs and POSTs messages, checking the destination's address before every attempt. With `span`
 * (tracing on) each attempt is a client span linked to its event's commit, sent as `traceparent`.
 */
export class Deliverer {
  /** One idle connection per endpoint, taken out while in use (a ping may run beside a loop). */
  #idle = new Map<string, OpenConnection>();

  constructor(
    private readonly policy: DestinationPolicy,
    private readonly timeoutMs: number,
    private readonly clock: () => number = Date.now,
    private readonly span?: StartLinkedSpan,
  ) {}

  /** One attempt: resolve and check the URL's host, POST to that address; `signal` cuts it off. */
  async attempt(
    endpoint: WebhookEndpoint,
    message: Message,
    signal?: AbortSignal,
    attempt = 1,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const traced = this.span?.("webhook.delivery", message.seq, {
      "http.request.method": "POST",
      "webhook.endpoint_id": endpoint.id,
      "webhook.message_id": message.id,
      "webhook.event_type": message.type,
      "webhook.attempt": attempt,
      "log.seq": message.seq,
    });
    const done = (statusCode: number | null, error: string | null, kind?: string) => {
      const result: AttemptResult = {
        ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
        gone: statusCode === 410,
        statusCode,
        error,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      };
      if (traced !== undefined) endSpan(traced, result, kind);
      return result;
    };
    let destination;
    try {
      destination = await this.policy.check(endpoint.url);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return done(null, why, "destination_refused");
    }
    traced?.set("server.address", destination.url.hostname);
    traced?.set("server.port", destination.port);
    const now = this.clock();
    const timestamp = Math.floor(now / 1000);
    const headers = {
      "webhook-id": message.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(
        activeSecrets(endpoint, now),
        message.id,
        timestamp,
        message.bytes ?? message.body,
      ),
    };
    if (traced !== undefined) Object.assign(headers, { traceparent: traced.traceparent });
    const kept = this.#idle.get(endpoint.id);
    this.#idle.delete(endpoint.id);
    const { outcome, open } = await postTo(
      destination,
      headers,
      message.bytes ?? message.body,
      this.timeoutMs,
      kept,
      undefined,
      signal,
    );
    if (open !== undefined) {
      const other = this.#idle.get(endpoint.id);
      if (other !== undefined) other.conn.close();
      this.#idle.set(endpoint.id, open);
    }
    if (outcome.status === undefined) return done(null, outcome.error);
    const redirect = outcome.status >= 300 && outcome.status < 400;
    return done(outcome.status, redirect ? "redirects are not followed" : null);
  }

  /** Closes an endpoint's idle connection (its delivery stopped: removed, disabled, moved). */
  forget(id: string): void {
    const open = this.#idle.get(id);
    this.#idle.delete(id);
    try {
      open?.conn.close();
    } catch { /* already closed */ }
  }

  /** Closes the idle connections (at shutdown). */
  close(): void {
    for (const id of [...this.#idle.keys()]) this.forget(id);
  }
}

/** Ends an attempt's span: its status code, or the kind of failure (never the error's text). */
function endSpan(span: ClientSpan, result: AttemptResult, kind?: string): void {
  const { statusCode, error } = result;
  if (statusCode !== null) span.set("http.response.status_code", statusCode);
  if (!result.ok) {
    const timeout = error?.startsWith("no answer within") ? "timeout" : "network_error";
    span.fail(kind ?? (statusCode !== null ? String(statusCode) : timeout));
  }
  span.end();
}

/** The deliveries-log entry of an attempt. */
export function attemptEntry(
  message: Message,
  attempt: number,
  at: number,
  result: AttemptResult,
  nextAt: number | null,
): DeliveryAttempt {
  return {
    seq: message.seq,
    event_type: message.type,
    attempt,
    at: isoTime(at),
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
    next_attempt_at: nextAt === null ? null : new Date(nextAt).toISOString(),
  };
}

let lastMs = -1;
let lastIso = "";

/** `ms` as ISO time; attempts ending in the same millisecond share one string. */
function isoTime(ms: number): string {
  if (ms !== lastMs) lastMs = ms, lastIso = new Date(ms).toISOString();
  return lastIso;
}
