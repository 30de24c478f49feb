import { Buffer } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Authenticate } from "../auth/authenticator.ts";
import { READ_SCOPE } from "../auth/scopes.ts";
import type { Principal } from "../http/api_module.ts";
import { InvalidTokenError } from "../http/errors.ts";

/** The longest a stream token is valid (contract §8). */
export const STREAM_TOKEN_TTL_MS = 60_000;
const PREFIX = "st1";
const PURPOSE = "customer-api events stream token v1";

/**
 * Short-lived tokens for the event stream (EventSource cannot send Authorization), keyed from the
 * HS256 secret so every replica accepts them; with a JWKS the key is per process.
 */
export class StreamTokens {
  #key: Uint8Array;
  #ttlMs: number;
  #clock: () => number;

  /** `ttlMs` and `clock` exist for tests; the server uses the defaults. */
  constructor(secret: Uint8Array | undefined, ttlMs = STREAM_TOKEN_TTL_MS, clock = Date.now) {
    this.#key = secret === undefined
      ? randomBytes(32)
      : createHmac("sha256", secret).update(PURPOSE).digest();
    this.#ttlMs = Math.min(ttlMs, STREAM_TOKEN_TTL_MS);
    this.#clock = clock;
  }

  /** A token for `sub`, and when it expires (ms since the epoch). */
  mint(sub: string): { token: string; expiresAt: number } {
    const expiresAt = this.#clock() + this.#ttlMs;
    const payload = base64url(JSON.stringify({ sub, exp: expiresAt }));
    return { token: `${PREFIX}.${payload}.${this.#mac(payload)}`, expiresAt };
  }

  /** The caller a token names, with only the read scope; throws InvalidTokenError otherwise. */
  verify(token: string): Principal {
    const [prefix, payload, mac, ...rest] = token.split(".");
    if (prefix !== PREFIX || payload === undefined || mac === undefined || rest.length > 0) {
      throw new InvalidTokenError("The stream token is malformed");
    }
    const expected = Buffer.from(this.#mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new InvalidTokenError("The stream token's signature is invalid");
    }
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as {
      sub: string;
      exp: number;
    };
    if (!(claims.exp > this.#clock())) throw new InvalidTokenError("The stream token has expired");
    return { sub: claims.sub, scopes: new Set([READ_SCOPE]) };
  }

  #mac(payload: string): string {
    return createHmac("sha256", this.#key).update(payload).digest("base64url");
  }
}

/** Wraps the bearer check: a GET of the event stream may use `?access_token=<stream token>`. */
export function acceptingStreamTokens(tokens: StreamTokens, bearer: Authenticate): Authenticate {
  return (request) => {
    const token = streamTokenOf(request);
    if (token === undefined) return bearer(request);
    try {
      return tokens.verify(token);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

function streamTokenOf(request: Request): string | undefined {
  if (request.method !== "GET" || !request.url.includes("access_token=")) return undefined;
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) return undefined;
  const url = new URL(request.url);
  if (url.pathname !== "/api/events") return undefined;
  return url.searchParams.get("access_token") ?? undefined;
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}
