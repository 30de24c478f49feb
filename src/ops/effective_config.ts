import { resolve } from "node:path";
import type { Config } from "../config.ts";
import { DEV_SECRET_FILE } from "../store/jsonl/data_dir_layout.ts";

const WINDOW_UNIT: Record<number, string> = { 1: "s", 60: "m", 3600: "h" };

/** Each setting as the server runs with it, for the startup line: absolute paths, sized secrets. */
export function effectiveConfig(config: Config): Record<string, unknown> {
  const source = config.keySource;
  const dataDir = resolve(config.dataDir);
  const written = config.durationsAsWritten;
  return {
    listen: config.socket === undefined
      ? `${config.host}:${config.port}`
      : `unix:${resolve(config.socket)}`,
    host: config.host,
    port: config.port,
    socket: config.socket === undefined ? null : resolve(config.socket),
    socket_mode: config.socketMode.toString(8).padStart(4, "0"),
    public_url: config.publicUrl ?? null,
    data_dir: dataDir,
    key_source: {
      secret: "JWT_SECRET",
      "jwks-file": "JWKS_FILE",
      "jwks-url": "JWKS_URL",
      dev: `development mode (generated secret in ${dataDir}/${DEV_SECRET_FILE})`,
    }[source.kind],
    jwt_secret: source.kind === "secret" ? `set (${source.secret.length} bytes)` : "not set",
    jwks_file: source.kind === "jwks-file" ? resolve(source.path) : null,
    jwks_url: source.kind === "jwks-url" ? source.url.href : null,
    jwks_cooldown_seconds: source.kind === "jwks-url" ? source.cooldownMs / 1000 : null,
    jwt_issuer: config.jwtIssuer ?? null,
    jwt_audience: config.jwtAudience ?? null,
    max_body_bytes: config.maxBodyBytes,
    snapshot_every: config.snapshotEvery,
    erase_within_seconds: config.eraseWithinSeconds,
    segment_max_bytes: config.segmentMaxBytes,
    log_level: config.logLevel,
    log_format: config.logFormat,
    rate_limit: config.rateLimit === undefined
      ? "off"
      : `${config.rateLimit.limit}/${WINDOW_UNIT[config.rateLimit.windowSeconds]}`,
    rate_limit_burst: config.rateLimit?.burst ?? null,
    cors_origins: config.corsOrigins,
    body_timeout: written.BODY_TIMEOUT,
    idempotency_max_keys: config.idempotencyMaxKeys,
    event_retention: written.EVENT_RETENTION,
    max_streams: config.maxStreams,
    sse_heartbeat: written.SSE_HEARTBEAT,
    stream_token_ttl: written.STREAM_TOKEN_TTL,
    webhook_timeout: written.WEBHOOK_TIMEOUT,
    webhook_retry_schedule: written.WEBHOOK_RETRY_SCHEDULE,
    webhook_allow_private: config.webhookAllowPrivate,
    max_webhooks: config.maxWebhooks,
    console: config.console ? "on" : "off",
    database_url: config.databaseUrl === undefined ? null : withoutPassword(config.databaseUrl),
    ...otelShown(config.otel),
  };
}

/** The OpenTelemetry settings as the runtime reads them (unset: its defaults); no header value. */
function otelShown(otel: Config["otel"]): Record<string, unknown> {
  return {
    otel_deno: otel.enabled,
    otel_exporter_otlp_endpoint: otel.endpoint === undefined
      ? null
      : URL.canParse(otel.endpoint)
      ? withoutPassword(otel.endpoint)
      : otel.endpoint,
    otel_exporter_otlp_protocol: otel.protocol ?? null,
    otel_exporter_otlp_headers: otel.headers === undefined
      ? null
      : `set (${otel.headers.length} characters)`,
    otel_service_name: otel.serviceName ?? null,
    otel_resource_attributes: otel.resourceAttributes ?? null,
  };
}

/** A connection URL with its password, if any, replaced by `***`. */
export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== "") parsed.password = "***";
  return parsed.href;
}
