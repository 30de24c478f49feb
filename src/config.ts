/** The service's settings, read once from the environment (contract §1). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The HS256 secret; undefined means development mode (a generated secret). */
  jwtSecret?: Uint8Array;
  jwtIssuer?: string;
  jwtAudience?: string;
  maxBodyBytes: number;
}

/** A setting is missing or wrong; the message says what to fix. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
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
  if (sources.length === 1 && sources[0] !== "JWT_SECRET") {
    throw new ConfigError(`${sources[0]} is not supported yet; use JWT_SECRET`);
  }
  const secret = env("JWT_SECRET");
  let jwtSecret: Uint8Array | undefined;
  if (nonEmpty(secret)) {
    jwtSecret = new TextEncoder().encode(secret);
    if (jwtSecret.length < MIN_SECRET_BYTES) {
      throw new ConfigError(
        `JWT_SECRET is ${jwtSecret.length} bytes; use at least ${MIN_SECRET_BYTES} random bytes`,
      );
    }
  }
  return {
    port: integer(env, "PORT", 8000, 0, 65535),
    host: env("HOST") || "127.0.0.1",
    dataDir: env("DATA_DIR") || "./data",
    jwtSecret,
    jwtIssuer: env("JWT_ISSUER") || undefined,
    jwtAudience: env("JWT_AUDIENCE") || undefined,
    maxBodyBytes: integer(env, "MAX_BODY_BYTES", 65536, 1024, 16 * 1024 * 1024),
  };
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
