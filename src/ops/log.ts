/** Severity of a log line, in increasing order. */
import type { LogLevel } from "../config.ts";

/** How a line is written: one JSON object, or a line for people (time, level, message, fields). */
export type LineFormat = "json" | "text";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** The trace a log line belongs to, so logs and traces join (tracing on). */
export interface TraceIds {
  traceId: string;
  spanId: string;
}

/** Writes one JSON object per line; fields must never hold tokens or personal data. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Writes at level info whatever the threshold: for the lines operators rely on (the URL). */
  always(msg: string, fields?: Record<string, unknown>): void;
  /** The distinct messages logged at warn or error so far (the first 20), for a summary. */
  warnings(): readonly string[];
}

/**
 * A logger writing lines at or above `level` to `write`, as JSON objects or text; a line written
 * while `traceIds` gives some (a traced request's) carries `trace_id` and `span_id`.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void,
  format: LineFormat = "json",
  traceIds?: () => TraceIds | undefined,
): Logger {
  const warnings = new Set<string>();
  const at =
    (lineLevel: LogLevel, force = false) => (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lineLevel] >= ORDER.warn && warnings.size < 20) warnings.add(msg);
      if (!force && ORDER[lineLevel] < ORDER[level]) return;
      const time = new Date().toISOString();
      const ids = traceIds?.();
      if (ids !== undefined) fields = { ...fields, trace_id: ids.traceId, span_id: ids.spanId };
      write(
        format === "json"
          ? JSON.stringify({ time, level: lineLevel, msg, ...fields })
          : textLine(time, lineLevel, msg, fields),
      );
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    always: at("info", true),
    warnings: () => [...warnings],
  };
}

/** `12:00:01.123 WARN  message key=value …`: strings bare when they hold no space or quote. */
export function textLine(
  time: string,
  level: LogLevel,
  msg: string,
  fields: Record<string, unknown>,
): string {
  const parts = [time.slice(11, 23), level.toUpperCase().padEnd(5), msg];
  for (const [name, value] of Object.entries(fields)) {
    const text = typeof value === "string" && /^[^\s"=]+$/.test(value)
      ? value
      : JSON.stringify(value);
    parts.push(`${name}=${text}`);
  }
  return parts.join(" ");
}

let lastMs = 0;
let lastIso = "";

/** The current time as an RFC 3339 timestamp, computed at most once per millisecond. */
function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** One access-log line as `createLogger` writes it, without JSON.stringify (nothing to escape). */
export function requestLine(
  requestId: string,
  method: string,
  route: string,
  status: number,
  durationMs: number,
  trace?: TraceIds,
): string {
  const ids = trace === undefined
    ? ""
    : `,"trace_id":"${trace.traceId}","span_id":"${trace.spanId}"`;
  return `{"time":"${nowIso()}","level":"info","msg":"request","request_id":"${requestId}",` +
    `"method":"${method}","route":"${route}","status":${status},"duration_ms":${durationMs}${ids}}`;
}
