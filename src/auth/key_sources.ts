import {
  createLocalJWKSet,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWK,
  type JWTVerifyGetKey,
} from "jose";
import { KeySetUnavailableError } from "../http/errors.ts";

/** The algorithms accepted for a shared secret and for a public key set (never `none`). */
export const SECRET_ALGORITHMS = ["HS256"];
export const KEY_SET_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA", "Ed25519"];

/** A key set holds no public key this service can use; the message says why. */
export class UnusableKeySetError extends Error {
  constructor(source: string, reason: string) {
    super(`The key set from ${source} is not usable: ${reason}`);
    this.name = "UnusableKeySetError";
  }
}

const KEY_TYPES: Record<string, string[]> = {
  RSA: ["RS256", "PS256"],
  EC: ["ES256"],
  OKP: ["EdDSA", "Ed25519"],
};

/** The public signing keys of a JWKS this service can use; throws UnusableKeySetError if none. */
export function usableKeys(jwks: unknown, source: string): JSONWebKeySet {
  if (typeof jwks !== "object" || jwks === null || !Array.isArray((jwks as JSONWebKeySet).keys)) {
    throw new UnusableKeySetError(source, 'it is not a JSON object with a "keys" array');
  }
  const keys = (jwks as JSONWebKeySet).keys.filter((key: JWK) =>
    typeof key === "object" && key !== null && typeof key.kty === "string" &&
    KEY_TYPES[key.kty] !== undefined && key.d === undefined && key.k === undefined &&
    (key.use === undefined || key.use === "sig") &&
    (key.alg === undefined || KEY_TYPES[key.kty].includes(key.alg)) &&
    (key.kty !== "EC" || key.crv === "P-256") && (key.kty !== "OKP" || key.crv === "Ed25519")
  );
  if (keys.length === 0) {
    throw new UnusableKeySetError(
      source,
      "it has no public RSA, EC P-256 or Ed25519 signing key (private and symmetric keys are ignored)",
    );
  }
  return { keys };
}

export interface RemoteKeySetOptions {
  /** The least time between two fetches, so unknown `kid`s cannot make us hammer the IdP. */
  cooldownMs?: number;
  /** How long fetched keys are used before they are fetched again. */
  maxAgeMs?: number;
  timeoutMs?: number;
  clock?: () => number;
  /** Receives fetch failures (the keys fetched before stay in use). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}

/** A remote JWKS, cached: fetched at most once per cooldown, keeping the old keys on failure. */
export class RemoteKeySet {
  /** Fetches made so far; tests read it to prove the cooldown. */
  fetches = 0;
  #url: URL;
  #keys: JWTVerifyGetKey | undefined;
  #fetchedAt = -Infinity;
  #attemptedAt = -Infinity;
  #lastFailed = false;
  #pending: Promise<void> | undefined;
  #cooldownMs: number;
  #maxAgeMs: number;
  #timeoutMs: number;
  #clock: () => number;
  #warn: (message: string, fields: Record<string, unknown>) => void;

  constructor(url: URL, options: RemoteKeySetOptions = {}) {
    this.#url = url;
    this.#cooldownMs = options.cooldownMs ?? 30_000;
    this.#maxAgeMs = options.maxAgeMs ?? 600_000;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#clock = options.clock ?? Date.now;
    this.#warn = options.warn ?? (() => {});
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.#clock();
    if (this.#keys === undefined || now - this.#fetchedAt > this.#maxAgeMs) {
      await this.#refresh(now);
    }
    if (this.#keys === undefined) throw new KeySetUnavailableError();
    try {
      return await this.#keys(header, token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      await this.#refresh(now);
      if (this.#lastFailed) throw new KeySetUnavailableError();
      return await this.#keys(header, token);
    }
  };

  /** Fetches the key set unless a fetch is under way or the cooldown has not passed. */
  #refresh(now: number): Promise<void> {
    if (this.#pending !== undefined) return this.#pending;
    if (now - this.#attemptedAt < this.#cooldownMs) return Promise.resolve();
    this.#attemptedAt = now;
    this.fetches++;
    this.#pending = this.#fetch().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #fetch(): Promise<void> {
    try {
      const response = await fetch(this.#url, {
        redirect: "error",
        signal: AbortSignal.timeout(this.#timeoutMs),
        headers: { accept: "application/jwk-set+json, application/json" },
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`status ${response.status}`);
      }
      this.#keys = createLocalJWKSet(usableKeys(await response.json(), this.#url.href));
      this.#fetchedAt = this.#clock();
      this.#lastFailed = false;
    } catch (error) {
      this.#lastFailed = true;
      this.#warn("Could not fetch the JSON Web Key Set", {
        url: this.#url.href,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
