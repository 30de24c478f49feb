import type { RatePolicy } from "./http/rate_limit.ts";
import { parseRatePolicy } from "./http/rate_limit.ts";
import { EXIT_CONFIG, StartupError } from "./lib/startup_error.ts";

/** How much the service logs: each level includes the ones after it. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** The service's settings, read once from the environment (contract §1). */
export interface Config {
  port: number;
  host: string;
  /** A Unix domain socket to listen on instead of HOST/PORT (sidecars). */
  socket?: string;
  /** File mode of the socket (SOCKET_MODE, octal). */
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
  /** Start a new log segment at this size. */
  segmentMaxBytes: number;
  logLevel: LogLevel;
  /** Per-subject rate limit; undefined means off. */
  rateLimit?: RatePolicy;
  /** Origins allowed by CORS; empty means CORS is off. */
  corsOrigins: string[];
  /** A request body not received within this many ms is answered 408. */
  bodyTimeoutMs: number;
  /** At most this many idempotency keys are remembered; the oldest is forgotten first. */
  idempotencyMaxKeys: number;
  /** Events stay readable in the change feed for this many ms (EVENT_RETENTION). */
  eventRetentionMs: number;
  /** At most this many Server-Sent Events streams at once; more answer 503 (MAX_STREAMS). */
  maxStreams: number;
  /** An event stream gets a heartbeat comment (or a bookmark) at least this often (SSE_HEARTBEAT). */
  sseHeartbeatMs: number;
  /** A stream token opens the event stream for this long (STREAM_TOKEN_TTL). */
  streamTokenTtlMs: number;
  /** A webhook delivery succeeds only with a 2xx within this many ms (WEBHOOK_TIMEOUT). */
  webhookTimeoutMs: number;
  /** The pauses before each retry of a failed webhook delivery, in ms (WEBHOOK_RETRY_SCHEDULE). */
  webhookRetryScheduleMs: number[];
  /** Allows webhook URLs on private addresses and plain http (WEBHOOK_ALLOW_PRIVATE=1). */
  webhookAllowPrivate: boolean;
  /** At most this many webhook endpoints (MAX_WEBHOOKS). */
  maxWebhooks: number;
  /** A PostgreSQL connection URL: the PostgreSQL store instead of the JSONL log (DATABASE_URL). */
  databaseUrl?: string;
  /** Each duration setting as it was written, or as its default is spelled (for people to read). */
  durationsAsWritten: Record<DurationSetting, string>;
  /** Serves the browser console at /console (CONSOLE=on, the default). */
  console: boolean;
}

/** The duration settings with their defaults, spelled as the README spells them. */
const DURATION_DEFAULTS = {
  BODY_TIMEOUT: "30s",
  EVENT_RETENTION: "30d",
  SSE_HEARTBEAT: "15s",
  STREAM_TOKEN_TTL: "60s",
  WEBHOOK_TIMEOUT: "10s",
  WEBHOOK_RETRY_SCHEDULE: "5s,5m,30m,2h,5h,10h,10h",
} as const;

/** The name of a setting whose value is a duration (or, for the retry schedule, a list of them). */
export type DurationSetting = keyof typeof DURATION_DEFAULTS;

/** One of the three key sources of contract §1, or none (development mode). */
export type KeySource =
  | { kind: "secret"; secret: Uint8Array }
  | { kind: "jwks-file"; path: string }
  | { kind: "jwks-url"; url: URL; cooldownMs: number }
  | { kind: "dev" };

/** A setting is missing or wrong; the message says what to fix. */
export class ConfigError extends StartupError {
  constructor(message: string) {
    super(message, EXIT_CONFIG);
    this.name = "ConfigError";
  }
}

/** The smallest HS256 secret accepted (RFC 7518 §3.2: at least the hash size). */
export const MIN_SECRET_BYTES = 32;

/** Reads and validates the configuration; throws ConfigError naming the variable to fix. */
export function loadConfig(env: (name: string) => string | undefined): Config {
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
  };
}

/** Each duration setting's value as written, or its default's spelling when unset. */
function durationsAsWritten(
  env: (name: string) => string | undefined,
): Record<DurationSetting, string> {
  const names = Object.keys(DURATION_DEFAULTS) as DurationSetting[];
  return Object.fromEntries(
    names.map((name) => [name, nonEmpty(env(name)) ? env(name) : DURATION_DEFAULTS[name]]),
  ) as Record<DurationSetting, string>;
}

const DAY_MS = 86_400_000;

/** DATA_DIR, for the tasks that need nothing else (`verify`). */
export function dataDirSetting(env: (name: string) => string | undefined): string {
  return env("DATA_DIR") || "./data";
}

/** IDEMPOTENCY_MAX_KEYS alone, for `deno task compact`, which rebuilds the remembered keys. */
export function idempotencyMaxKeysSetting(env: (name: string) => string | undefined): number {
  return integer(env, "IDEMPOTENCY_MAX_KEYS", 100_000, 1, 100_000_000);
}

/** SEGMENT_MAX_BYTES alone, for `deno task migrate`, which writes segments of that size. */
export function segmentMaxBytesSetting(env: (name: string) => string | undefined): number {
  return integer(env, "SEGMENT_MAX_BYTES", 64 * 1024 * 1024, 4096, 2 ** 40);
}

/** DATABASE_URL alone, for `deno task migrate` (undefined when unset). */
export function databaseUrlSetting(env: (name: string) => string | undefined): string | undefined {
  return databaseUrl(env("DATABASE_URL"));
}

/** The longest Unix socket path Linux accepts (sun_path holds 108 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

function socketPath(value: string | undefined): string | undefined {
  if (!nonEmpty(value)) return undefined;
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(
      `SOCKET "${value}" is ${bytes} bytes long; a Unix socket path may have at most ${MAX_SOCKET_PATH_BYTES}, so choose a shorter one`,
    );
  }
  return value;
}

function keySource(env: (name: string) => string | undefined, name: string | undefined): KeySource {
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

function socketMode(value: string | undefined): number {
  if (!nonEmpty(value)) return 0o660;
  if (!/^0?[0-7]{3}$/.test(value)) {
    throw new ConfigError(`SOCKET_MODE "${value}" must be an octal file mode such as 660`);
  }
  return parseInt(value, 8);
}

function publicUrl(value: string | undefined): string | undefined {
  if (!nonEmpty(value)) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (
    url === undefined || !["http:", "https:"].includes(url.protocol) || url.search !== "" ||
    url.hash !== "" || url.username !== "" || url.password !== ""
  ) {
    throw new ConfigError(
      `PUBLIC_URL "${value}" must be an http:// or https:// URL with no query, fragment or credentials`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

function logLevel(value: string | undefined): LogLevel {
  if (!nonEmpty(value)) return "info";
  if (["debug", "info", "warn", "error"].includes(value)) return value as LogLevel;
  throw new ConfigError(`LOG_LEVEL "${value}" must be debug, info, warn or error`);
}

function rateLimit(env: (name: string) => string | undefined): RatePolicy | undefined {
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

function corsOrigins(value: string | undefined): string[] {
  if (!nonEmpty(value)) return [];
  return value.split(",").map((item) => item.trim()).filter((item) => item !== "").map((origin) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // Reported below.
    }
    if (parsed === undefined || parsed.origin !== origin) {
      throw new ConfigError(
        `CORS_ORIGINS entry "${origin}" must be an exact origin such as https://app.example.com (no "*", path or trailing slash)`,
      );
    }
    return origin;
  });
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

function integer(
  env: (name: string) => string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = env(name);
  if (!nonEmpty(value)) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} "${value}" must be an integer from ${min} to ${max}`);
  }
  return Number(value);
}

const DURATION_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: DAY_MS,
};
const MAX_DURATION_MS = 24 * 3_600_000;

/**
 * A duration such as `500ms`, `10s`, `2m` or `1h`, in milliseconds, from `minMs` (default 1 ms)
 * to `maxMs` (default 24 h); unset, its default.
 */
function duration(
  env: (name: string) => string | undefined,
  name: DurationSetting,
  maxMs = MAX_DURATION_MS,
  minMs = 1,
): number {
  const value = env(name);
  if (!nonEmpty(value)) return durationMs(DURATION_DEFAULTS[name], maxMs)!;
  const ms = durationMs(value, maxMs);
  if (ms === undefined || ms < minMs) {
    const range = maxMs > DAY_MS
      ? `1ms to ${maxMs / DAY_MS}d such as 10s, 2h or 30d`
      : maxMs < MAX_DURATION_MS
      ? `${minMs / 1000}s to ${maxMs / 1000}s such as ${minMs / 1000}s or ${maxMs / 1000}s`
      : "1ms to 24h such as 500ms, 10s, 2m or 1h";
    throw new ConfigError(`${name} "${value}" must be a duration from ${range}`);
  }
  return ms;
}

/** A duration such as `500ms`, `10s`, `2m`, `1h` or `30d` within 1 ms and `maxMs`. */
function durationMs(value: string, maxMs: number): number | undefined {
  const match = /^([0-9]+)(ms|s|m|h|d)$/.exec(value);
  const ms = match === null ? NaN : Number(match[1]) * DURATION_UNITS_MS[match[2]];
  return ms >= 1 && ms <= maxMs ? ms : undefined;
}

/** A comma-separated list of 1 to 20 durations (each 1ms to 24h), e.g. `1s,2s,4s`. */
function durations(env: (name: string) => string | undefined, name: DurationSetting): number[] {
  const value = env(name) || DURATION_DEFAULTS[name];
  const items = value.split(",").map((item) => durationMs(item.trim(), MAX_DURATION_MS));
  if (items.length > 20 || items.some((ms) => ms === undefined)) {
    throw new ConfigError(
      `${name} "${value}" must be 1 to 20 comma-separated durations from 1ms to 24h, such as 1s,2s,4s`,
    );
  }
  return items as number[];
}

/** A switch: `1` or `true` on; `0`, `false` or unset off. */
function flag(env: (name: string) => string | undefined, name: string): boolean {
  const value = env(name);
  if (!nonEmpty(value) || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw new ConfigError(`${name} "${value}" must be 1 (on) or 0 (off)`);
}

function onOff(
  env: (name: string) => string | undefined,
  name: string,
  fallback: boolean,
): boolean {
  const value = env(name);
  if (!nonEmpty(value)) return fallback;
  if (value === "on" || value === "off") return value === "on";
  throw new ConfigError(`${name} "${value}" must be on or off`);
}

function databaseUrl(value: string | undefined): string | undefined {
  if (!nonEmpty(value)) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (url === undefined || !["postgres:", "postgresql:"].includes(url.protocol)) {
    // The value may hold a password: only its scheme is quoted.
    throw new ConfigError(
      `DATABASE_URL must be a postgres:// or postgresql:// URL such as postgres://user@host:5432/db (got one starting "${
        value.split(":")[0]
      }:")`,
    );
  }
  return value;
}
