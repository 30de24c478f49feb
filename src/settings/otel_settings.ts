/** The OpenTelemetry variables: OTEL_DENO, and the exporter's that the runtime itself reads. */
import { ConfigError } from "./config_error.ts";
import { type Env, nonEmpty } from "./setting_values.ts";

/** OTEL_DENO=true: the runtime exports, the service adds spans; the rest is only shown. */
export interface OtelSettings {
  enabled: boolean;
  endpoint?: string;
  protocol?: string;
  /** OTEL_EXPORTER_OTLP_HEADERS, which may hold a collector's API key: never logged. */
  headers?: string;
  serviceName?: string;
  resourceAttributes?: string;
}

/** Reads them; OTEL_DENO is `true` or `false` (Deno turns tracing on for `true` alone). */
export function otelSettings(env: Env): OtelSettings {
  const value = env("OTEL_DENO");
  // The runtime compares without case, and takes anything else (1, yes) silently as off.
  const enabled = nonEmpty(value) && value.toLowerCase() === "true";
  if (nonEmpty(value) && !enabled && value.toLowerCase() !== "false") {
    throw new ConfigError(
      `OTEL_DENO "${value}" must be true or false (Deno traces only with OTEL_DENO=true)`,
    );
  }
  const text = (name: string) => nonEmpty(env(name)) ? env(name) : undefined;
  return {
    enabled,
    endpoint: text("OTEL_EXPORTER_OTLP_ENDPOINT"),
    protocol: text("OTEL_EXPORTER_OTLP_PROTOCOL"),
    headers: text("OTEL_EXPORTER_OTLP_HEADERS"),
    serviceName: text("OTEL_SERVICE_NAME"),
    resourceAttributes: text("OTEL_RESOURCE_ATTRIBUTES"),
  };
}
