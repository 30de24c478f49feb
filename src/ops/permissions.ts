/**
 * The least-privilege Deno permission flags the server runs under. The Dockerfile, the `start`,
 * `dev` and `compile` tasks in deno.json and the end-to-end tests all use exactly these flags;
 * tests/permissions_test.ts proves that they agree, so a permission the code lacks fails the tests.
 */

/** Every environment variable the server reads; `--allow-env` grants exactly these. */
export const SERVER_ENV_VARS = [
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
  "RATE_LIMIT",
  "RATE_LIMIT_BURST",
  "CORS_ORIGINS",
  "HEADER_TIMEOUT",
  "BODY_TIMEOUT",
  "IDLE_TIMEOUT",
  "IDEMPOTENCY_MAX_KEYS",
] as const;

/** The paths the server may touch: it writes only its data directory and reads the key file. */
export interface PermissionPaths {
  /** DATA_DIR: read and written (log, snapshots, lock, dev secret). */
  dataDir: string;
  /** Read-only paths, e.g. the directory a JWKS_FILE is mounted in, or the file itself. */
  readOnly?: readonly string[];
}

/** The data and config paths of the container image (`/config` is where a JWKS_FILE goes). */
export const CONTAINER_PATHS: PermissionPaths = { dataDir: "/data", readOnly: ["/config"] };

/** The paths of `deno task start`: DATA_DIR's default `./data` and `./config` for a JWKS_FILE. */
export const LOCAL_PATHS: PermissionPaths = { dataDir: "./data", readOnly: ["./config"] };

/**
 * `deno run` flags for the server. `--allow-net` is not narrowed: the listening address comes from
 * HOST/PORT and the IdP from JWKS_URL, both known only at run time (the README shows how to narrow
 * it for one deployment). Paths must not contain commas (Deno splits allow-lists on them).
 */
export function serverPermissionFlags(paths: PermissionPaths): string[] {
  const read = [paths.dataDir, ...(paths.readOnly ?? [])];
  for (const path of read) {
    if (path === "" || path.includes(",")) {
      throw new Error(`Permission path "${path}" must be non-empty and contain no comma`);
    }
  }
  return [
    "--no-prompt",
    "--allow-net",
    `--allow-env=${SERVER_ENV_VARS.join(",")}`,
    `--allow-read=${read.join(",")}`,
    `--allow-write=${paths.dataDir}`,
  ];
}
