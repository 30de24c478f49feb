import type { RatePolicy } from "./http/rate_limit.ts";
import { parseRatePolicy } from "./http/rate_limit.ts";
import { ConfigError } from "./settings/config_error.ts";
import {
  DAY_MS,
  duration,
  durations,
  durationsAsWritten,
  type DurationSetting,
} from "./settings/durations.ts";
import { type Env, flag, integer, nonEmpty, onOff } from "./settings/setting_values.ts";
import {
  corsOrigins,
  databaseUrl,
  publicUrl,
  socketMode,
  socketPath,
} from "./settings/address_settings.ts";
import { type OtelSettings, otelSettings } from "./settings/otel_settings.ts";

/** How much the service logs: each level includes the ones after it. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** How log lines are written: `auto` is `text` on a terminal and `json` otherwise. */
export type LogFormat = "auto" | "json" | "text";

/** The service's settings, read once from the environment (contract §1). */
export interface Config {
  port: number;
  host: string;
  /** A Unix domain socket to listen on instead of HOST/PORT (sidecars). */
  socket?: string;
  socketMode: number;
  /** The service's public base URL, for the OpenAPI `servers` entry; else the request's origin. */
  publicUrl?: string;
  dataDir: string;
  /** Where token keys come from; "dev" is development mode (a generated secret). */
  keySource: KeySource;
  jwtIssuer?: string;
  jwtAudience?: string;
  maxBodyBytes: number;
  /** Compact after this many events since the last snapshot. */
  snapshotEvery: number;
  /** After a delete, compact (erasing the customer's data) within this many seconds. */
  eraseWithinSeconds: number;
  segmentMaxBytes: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  rateLimit?: RatePolicy;
  corsOrigins: string[];
  /** A request body not received within this many ms is answered 408. */
  bodyTimeoutMs: number;
  /** At most this many idempotency keys are remembered; the oldest is forgotten first. */
  idempotencyMaxKeys: number;
  eventRetentionMs: number;
  /** At most this many Server-Sent Events streams at once; more answer 503 (MAX_STREAMS). */
  maxStreams: number;
  /** An event stream gets a heartbeat (or a bookmark) at least this often (SSE_HEARTBEAT). */
  sseHeartbeatMs: number;
  streamTokenTtlMs: number;
  /** A webhook delivery succeeds only with a 2xx within this many ms (WEBHOOK_TIMEOUT). */
  webhookTimeoutMs: number;
  /** The pauses before each retry of a failed webhook delivery, in ms (WEBHOOK_RETRY_SCHEDULE). */
  webhookRetryScheduleMs: number[];
  webhookAllowPrivate: boolean;
  maxWebhooks: number;
  databaseUrl?: string;
  /** Each duration setting as it was written, or as its default is spelled (for people to read). */
  durationsAsWritten: Record<DurationSetting, string>;
  console: boolean;
  /** OpenTelemetry: on with OTEL_DENO=true (the runtime's switch), and where it exports. */
  otel: OtelSettings;
}

/** One of the three key sources of contract §1, or none (development mode). */
export type KeySource =
  | { kind: "secret"; secret: Uint8Array }
  | { kind: "jwks-file"; path: string }
  | { kind: "jwks-url"; url: URL; cooldownMs: number }
  | { kind: "dev" };

/** The smallest HS256 secret accepted (RFC 7518 §3.2: at least the hash size). */
export const MIN_SECRET_BYTES = 32;

/** Reads and validates the configuration; throws ConfigError naming the variable to fix. */
export function loadConfig(env: Env): Config {
  const sources = ["JWT_SECRET", "JWKS_FILE", "JWKS_URL"].filter((name) => nonEmpty(env(name)));
  if (sources.length > 1) {
    throw new ConfigError(`Set exactly one key source, not ${sources.join(" and ")}`);
  }
  return {
    port: integer(env, "PORT", 8000, 0, 65535),
    host: env("HOST") || "127.0.0.1",
    socket: socketPath(env("SOCKET")),
    socketMode: socketMode(env("SOCKET_MODE")),
    publicUrl: publicUrl(env("PUBLIC_URL")),
    dataDir: dataDirSetting(env),
    keySource: keySource(env, sources[0]),
    jwtIssuer: env("JWT_ISSUER") || undefined,
    jwtAudience: env("JWT_AUDIENCE") || undefined,
    maxBodyBytes: integer(env, "MAX_BODY_BYTES", 65536, 1024, 16 * 1024 * 1024),
    snapshotEvery: integer(env, "SNAPSHOT_EVERY", 100_000, 1, 100_000_000),
    eraseWithinSeconds: integer(env, "ERASE_WITHIN_SECONDS", 3600, 0, 30 * 86400),
    segmentMaxBytes: segmentMaxBytesSetting(env),
    logLevel: logLevel(env("LOG_LEVEL")),
    logFormat: logFormat(env("LOG_FORMAT")),
    rateLimit: rateLimit(env),
    corsOrigins: corsOrigins(env("CORS_ORIGINS")),
    bodyTimeoutMs: duration(env, "BODY_TIMEOUT"),
    idempotencyMaxKeys: idempotencyMaxKeysSetting(env),
    eventRetentionMs: duration(env, "EVENT_RETENTION", 3650 * DAY_MS),
    maxStreams: integer(env, "MAX_STREAMS", 1000, 1, 1_000_000),
    // Contract §8: a heartbeat at least every 15 s, a stream token valid at most 60 s.
    sseHeartbeatMs: duration(env, "SSE_HEARTBEAT", 15_000, 1000),
    streamTokenTtlMs: duration(env, "STREAM_TOKEN_TTL", 60_000, 1000),
    webhookTimeoutMs: duration(env, "WEBHOOK_TIMEOUT"),
    webhookRetryScheduleMs: durations(env, "WEBHOOK_RETRY_SCHEDULE"),
    webhookAllowPrivate: flag(env, "WEBHOOK_ALLOW_PRIVATE"),
    maxWebhooks: integer(env, "MAX_WEBHOOKS", 100, 1, 100_000),
    databaseUrl: databaseUrl(env("DATABASE_URL")),
    durationsAsWritten: durationsAsWritten(env),
    console: onOff(env, "CONSOLE", true),
    otel: otelSettings(env),
  };
}

/** DATA_DIR, for the tasks that need nothing else (`verify`). */
export function dataDirSetting(env: Env): string {
  return env("DATA_DIR") || "./data";
}

/** IDEMPOTENCY_MAX_KEYS alone, for `deno task compact`, which rebuilds the remembered keys. */
export function idempotencyMaxKeysSetting(env: Env): number {
  return integer(env, "IDEMPOTENCY_MAX_KEYS", 100_000, 1, 100_000_000);
}

/** SEGMENT_MAX_BYTES alone, for `deno task migrate`, which writes segments of that size. */
export function segmentMaxBytesSetting(env: Env): number {
  return integer(env, "SEGMENT_MAX_BYTES", 64 * 1024 * 1024, 4096, 2 ** 40);
}

/** DATABASE_URL alone, for `deno task migrate` (undefined when unset). */
export function databaseUrlSetting(env: Env): string | undefined {
  return databaseUrl(env("DATABASE_URL"));
}

function keySource(env: Env, name: string | undefined): KeySource {
  const value = name === undefined ? undefined : env(name)!;
  if (name === "JWT_SECRET") {
    const secret = new TextEncoder().encode(value);
    if (secret.length < MIN_SECRET_BYTES) {
      throw new ConfigError(
        `JWT_SECRET is ${secret.length} bytes; use at least ${MIN_SECRET_BYTES} random bytes`,
      );
    }
    return { kind: "secret", secret };
  }
  if (name === "JWKS_FILE") return { kind: "jwks-file", path: value! };
  if (name === "JWKS_URL") {
    let url: URL;
    try {
      url = new URL(value!);
    } catch {
      throw new ConfigError(`JWKS_URL "${value}" is not a URL`);
    }
    // Keys fetched without TLS could be swapped on the way; plain http is for loopback only.
    const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
    if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
      throw new ConfigError(
        `JWKS_URL "${value}" must be an https:// URL (http:// only on loopback)`,
      );
    }
    const cooldownMs = integer(env, "JWKS_COOLDOWN_SECONDS", 30, 1, 3600) * 1000;
    return { kind: "jwks-url", url, cooldownMs };
  }
  return { kind: "dev" };
}

function logLevel(value: string | undefined): LogLevel {
  if (!nonEmpty(value)) return "info";
  if (["debug", "info", "warn", "error"].includes(value)) return value as LogLevel;
  throw new ConfigError(`LOG_LEVEL "${value}" must be debug, info, warn or error`);
}

function logFormat(value: string | undefined): LogFormat {
  if (!nonEmpty(value)) return "auto";
  if (["auto", "json", "text"].includes(value)) return value as LogFormat;
  throw new ConfigError(`LOG_FORMAT "${value}" must be auto, json or text`);
}

function rateLimit(env: Env): RatePolicy | undefined {
  const value = env("RATE_LIMIT");
  if (!nonEmpty(value) || value === "off") return undefined;
  const burst = nonEmpty(env("RATE_LIMIT_BURST"))
    ? integer(env, "RATE_LIMIT_BURST", 1, 1, 1_000_000_000)
    : undefined;
  try {
    return parseRatePolicy(value, burst);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}
