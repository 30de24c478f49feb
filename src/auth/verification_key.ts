import type { JSONWebKeySet, JWTVerifyGetKey } from "jose";
import { createLocalJWKSet } from "jose";
import type { Config } from "../config.ts";
import { ConfigError } from "../settings/config_error.ts";
import { loadOrCreateDevSecret } from "./dev_secret.ts";
import { DEV_SECRET_FILE } from "../store/jsonl/data_dir_layout.ts";
import { READ_SCOPE, WEBHOOKS_SCOPE, WRITE_SCOPE } from "./scopes.ts";
import { KEY_SET_ALGORITHMS, RemoteKeySet, SECRET_ALGORITHMS, usableKeys } from "./key_sources.ts";
import type { Logger } from "../ops/log.ts";
import { mintToken } from "./token_mint.ts";
import { StartupError } from "../lib/startup_error.ts";
import { dataDirFailure } from "../ops/data_dir_setting.ts";

export interface VerificationKey {
  key: Uint8Array | JWTVerifyGetKey;
  /** Development mode only: prints the ready token, a curl example and a console sign-in link. */
  announce?: (target: string, consoleUrl?: string) => void;
  algorithms: string[];
}

/**
 * Turns the configured key source into a verification key; refuses unusable sources. Any other
 * failure is one of DATA_DIR, where the development secret is kept.
 */
export function verificationKey(config: Config, log: Logger): Promise<VerificationKey> {
  return keyOf(config, log).catch((error) =>
    Promise.reject(error instanceof StartupError ? error : dataDirFailure(error, config.dataDir))
  );
}

async function keyOf(config: Config, log: Logger): Promise<VerificationKey> {
  const source = config.keySource;
  switch (source.kind) {
    case "secret":
      return { key: source.secret, algorithms: SECRET_ALGORITHMS };
    case "jwks-file": {
      let text: string;
      try {
        text = await Deno.readTextFile(source.path);
      } catch (error) {
        throw new ConfigError(
          `JWKS_FILE "${source.path}" cannot be read (${
            (error as Error).message
          }); check the path and that this user may read it`,
        );
      }
      let jwks: unknown;
      try {
        jwks = JSON.parse(text);
      } catch {
        throw new ConfigError(
          `JWKS_FILE "${source.path}" is not valid JSON; give it a JSON Web Key Set`,
        );
      }
      let keys: JSONWebKeySet;
      try {
        keys = usableKeys(jwks, source.path);
      } catch (error) {
        throw new ConfigError(
          `JWKS_FILE "${source.path}" holds no usable key: ${(error as Error).message}`,
        );
      }
      return { key: createLocalJWKSet(keys), algorithms: KEY_SET_ALGORITHMS };
    }
    case "jwks-url": {
      const keySet = new RemoteKeySet(source.url, {
        cooldownMs: source.cooldownMs,
        warn: (msg, fields) => log.warn(msg, fields),
      });
      return { key: keySet.getKey, algorithms: KEY_SET_ALGORITHMS };
    }
    case "dev":
      return { ...(await devModeSecret(config, log)), algorithms: SECRET_ALGORITHMS };
  }
}

/** Development mode: a generated secret, a loud warning and a ready token on stderr. */
async function devModeSecret(
  config: Config,
  log: Logger,
): Promise<{ key: Uint8Array; announce: (target: string, consoleUrl?: string) => void }> {
  const { secret, created } = await loadOrCreateDevSecret(config.dataDir);
  const scope = `${READ_SCOPE} ${WRITE_SCOPE} ${WEBHOOKS_SCOPE}`;
  const token = await mintToken(
    secret,
    {
      sub: "dev",
      scope,
      ttlSeconds: 24 * 3600,
    },
    config.jwtIssuer,
    config.jwtAudience,
  );
  log.warn("development mode: no JWT_SECRET, JWKS_FILE or JWKS_URL is set", {
    dev_secret: `${config.dataDir}/${DEV_SECRET_FILE}`,
    created,
  });
  const announce = (target: string, consoleUrl?: string) =>
    console.error(
      [
        "WARNING: development mode. Tokens are signed with a generated secret in DATA_DIR/dev-secret.",
        "Do not run like this in production: set JWT_SECRET, JWKS_FILE or JWKS_URL.",
        `A token with every scope (${scope}), valid for 24 h:\n${token}`,
        `Try: curl -H "Authorization: Bearer ${token}" ${target}`,
        // The token is in the fragment, which the browser keeps to itself.
        ...consoleUrl === undefined ? [] : [`Console (signs in): ${consoleUrl}#token=${token}`],
      ].join("\n"),
    );
  return { key: secret, announce };
}
