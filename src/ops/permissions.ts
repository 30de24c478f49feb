/** The least-privilege Deno permission flags of the server, derived from its configuration. */
import { isAbsolute, resolve } from "node:path";
import type { Config } from "../config.ts";
import { OPEN_FILES_ENV_VAR } from "./open_file_limit.ts";

/** Set by the launcher for the server it starts, never by a user (see ops/parent_watch.ts). */
export const LAUNCHER_ENV_VAR = "CUSTOMER_API_PARENT_PIPE";

/** The settings a user may give, each documented in README and .env.example. */
export const SETTINGS_ENV_VARS = [
  "PORT",
  "HOST",
  "SOCKET",
  "SOCKET_MODE",
  "PUBLIC_URL",
  "DATA_DIR",
  "JWT_SECRET",
  "JWKS_FILE",
  "JWKS_URL",
  "JWKS_COOLDOWN_SECONDS",
  "JWT_ISSUER",
  "JWT_AUDIENCE",
  "MAX_BODY_BYTES",
  "SNAPSHOT_EVERY",
  "ERASE_WITHIN_SECONDS",
  "SEGMENT_MAX_BYTES",
  "LOG_LEVEL",
  "LOG_FORMAT",
  "RATE_LIMIT",
  "RATE_LIMIT_BURST",
  "CORS_ORIGINS",
  "BODY_TIMEOUT",
  "IDEMPOTENCY_MAX_KEYS",
  "EVENT_RETENTION",
  "MAX_STREAMS",
  "SSE_HEARTBEAT",
  "STREAM_TOKEN_TTL",
  "WEBHOOK_TIMEOUT",
  "WEBHOOK_RETRY_SCHEDULE",
  "WEBHOOK_ALLOW_PRIVATE",
  "MAX_WEBHOOKS",
  "DATABASE_URL",
  "CONSOLE",
  "OTEL_DENO",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_SERVICE_NAME",
  "OTEL_RESOURCE_ATTRIBUTES",
] as const;

/** Every environment variable the server reads; `--allow-env` grants exactly these. */
export const SERVER_ENV_VARS = [
  ...SETTINGS_ENV_VARS,
  LAUNCHER_ENV_VAR,
  OPEN_FILES_ENV_VAR,
] as const;

/**
 * The flags of the launcher and `deno task compile`. `--allow-run` cannot name the binary:
 * Deno.execPath() is the resolved file, which `--allow-run=deno` misses behind a symlink.
 */
export const LAUNCHER_FLAGS = ["--no-prompt", "--allow-env", "--allow-run"] as const;

/** A configured path cannot be put into a Deno allow-list; the message names the variable. */
export class PermissionPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermissionPathError";
  }
}

/** The absolute paths the server may touch, from its configuration. */
export interface ServerPaths {
  /** DATA_DIR: log, snapshots, lock, dev secret (with DATABASE_URL only the dev secret). */
  dataDir?: string;
  jwksFile?: string;
  /** SOCKET: Deno.serve on a Unix socket needs read and write on its path. */
  socket?: string;
}

/** The configured paths made absolute against `cwd`; refuses one that holds a comma. */
export function serverPaths(
  config: Pick<Config, "dataDir" | "keySource" | "socket" | "databaseUrl">,
  cwd: string,
): ServerPaths {
  const absolute = (name: string, path: string) => {
    // Deno splits allow-lists on commas, and has no way to escape one.
    if (path.includes(",")) {
      throw new PermissionPathError(
        `${name} "${path}" contains a comma, which a Deno permission list cannot hold; use a path without one`,
      );
    }
    return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
  };
  // On PostgreSQL the data directory holds nothing but a development secret.
  const usesDataDir = config.databaseUrl === undefined || config.keySource.kind === "dev";
  const paths: ServerPaths = usesDataDir ? { dataDir: absolute("DATA_DIR", config.dataDir) } : {};
  if (config.keySource.kind === "jwks-file") {
    paths.jwksFile = absolute("JWKS_FILE", config.keySource.path);
  }
  if (config.socket !== undefined) paths.socket = absolute("SOCKET", config.socket);
  return paths;
}

/** The server's `deno run`/`deno compile` flags; `--allow-net` stays wide (HOST/PORT, JWKS_URL). */
export function serverPermissionFlags(
  config: Pick<Config, "dataDir" | "keySource" | "socket" | "databaseUrl">,
  cwd: string,
): string[] {
  const { dataDir, jwksFile, socket } = serverPaths(config, cwd);
  const read = [dataDir, jwksFile, socket].filter((path) => path !== undefined);
  const write = [dataDir, socket].filter((path) => path !== undefined);
  return [
    "--no-prompt",
    "--allow-net",
    `--allow-env=${SERVER_ENV_VARS.join(",")}`,
    // An empty list would not mean "nothing": the flag is left out instead.
    ...read.length > 0 ? [`--allow-read=${read.join(",")}`] : [],
    ...write.length > 0 ? [`--allow-write=${write.join(",")}`] : [],
  ];
}

export const MIGRATE_ENV_VARS = [
  "DATA_DIR",
  "DATABASE_URL",
  "IDEMPOTENCY_MAX_KEYS",
  "SEGMENT_MAX_BYTES",
] as const;

/** `deno task migrate`'s copy flags: DATA_DIR, the database's host and port, its four variables. */
export function migratePermissionFlags(
  dataDir: string,
  databaseUrl: string,
  cwd: string,
): string[] {
  if (dataDir.includes(",")) {
    throw new PermissionPathError(
      `DATA_DIR "${dataDir}" contains a comma, which a Deno permission list cannot hold; use a path without one`,
    );
  }
  const path = isAbsolute(dataDir) ? resolve(dataDir) : resolve(cwd, dataDir);
  const url = new URL(databaseUrl);
  const host = `${url.hostname || "localhost"}:${url.port || "5432"}`;
  return [
    "--no-prompt",
    `--allow-env=${MIGRATE_ENV_VARS.join(",")}`,
    `--allow-read=${path}`,
    `--allow-write=${path}`,
    `--allow-net=${host}`,
  ];
}
