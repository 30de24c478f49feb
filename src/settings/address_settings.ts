/** Settings that name where the service is reached or reaches out: socket, URLs, origins. */
import { ConfigError } from "./config_error.ts";
import { nonEmpty } from "./setting_values.ts";

/** The longest Unix socket path Linux accepts (sun_path holds 108 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

export function socketPath(value: string | undefined): string | undefined {
  if (!nonEmpty(value)) return undefined;
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(
      `SOCKET "${value}" is ${bytes} bytes long; a Unix socket path may have at most ${MAX_SOCKET_PATH_BYTES}, so choose a shorter one`,
    );
  }
  return value;
}

export function socketMode(value: string | undefined): number {
  if (!nonEmpty(value)) return 0o660;
  if (!/^0?[0-7]{3}$/.test(value)) {
    throw new ConfigError(`SOCKET_MODE "${value}" must be an octal file mode such as 660`);
  }
  return parseInt(value, 8);
}

export function publicUrl(value: string | undefined): string | undefined {
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

export function corsOrigins(value: string | undefined): string[] {
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

export function databaseUrl(value: string | undefined): string | undefined {
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
