import type { Config } from "../config.ts";
import { effectiveConfig } from "./effective_config.ts";
import { createLogger, type Logger, textLine, type TraceIds } from "./log.ts";
import { LogBuffer } from "./log_buffer.ts";
import { startupSummary, type SummaryFacts } from "./startup_summary.ts";

/** The service's logging: lifecycle lines, request lines, and the summary once ready. */
export interface ServiceLog {
  log: Logger;
  /** The request logger for the app; undefined when the level leaves requests out. */
  onRequest?: (id: string, method: string, route: string, status: number, ms: number) => void;
  /**
   * Says the service is ready: one JSON line, or on a terminal a summary for people; then, once
   * `indexed` resolves with its ms, that the search index is built.
   */
  ready(facts: Omit<SummaryFacts, "warnings"> & { indexed?: Promise<number> }): void;
}

/**
 * JSON lines on stdout, or on a terminal (LOG_FORMAT=auto) lines for people. Lifecycle and error
 * lines are written at once; request lines in batches, so a request costs no syscall. With
 * `traceIds` (tracing on), the lines of a traced request carry its `trace_id` and `span_id`.
 */
export function serviceLog(config: Config, traceIds?: () => TraceIds | undefined): ServiceLog {
  const sink = new LogBuffer(writeStdout);
  const text = config.logFormat === "text" ||
    (config.logFormat === "auto" && Deno.stdout.isTerminal());
  const log = createLogger(
    config.logLevel,
    (line) => {
      sink.text(line);
      sink.flush();
    },
    text ? "text" : "json",
    traceIds,
  );
  if (text) log.debug("configuration", effectiveConfig(config));
  else log.info("configuration", effectiveConfig(config));
  const logRequests = config.logLevel === "debug" || config.logLevel === "info";
  const onRequest = !logRequests
    ? undefined
    : text
    ? (request_id: string, method: string, route: string, status: number, duration_ms: number) => {
      const fields = { request_id, method, route, status, duration_ms };
      const ids = traceIds?.();
      const traced = ids && { ...fields, trace_id: ids.traceId, span_id: ids.spanId };
      sink.text(textLine(new Date().toISOString(), "info", "request", traced ?? fields));
    }
    : traceIds === undefined
    ? (id: string, method: string, route: string, status: number, ms: number) =>
      sink.request(id, method, route, status, ms)
    : (id: string, method: string, route: string, status: number, ms: number) =>
      sink.request(id, method, route, status, ms, traceIds());
  const ready = (facts: Omit<SummaryFacts, "warnings"> & { indexed?: Promise<number> }) => {
    void facts.indexed?.then((ms) =>
      log.info("search index built", { customers: facts.customers, ms })
    );
    if (!text) {
      log.always("ready", {
        url: facts.url,
        customers: facts.customers,
        replay_ms: facts.replayMs,
      });
      return;
    }
    for (const line of startupSummary(config, { ...facts, warnings: log.warnings() })) {
      sink.text(line);
    }
    sink.flush();
  };
  return { log, onRequest, ready };
}

function writeStdout(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}
