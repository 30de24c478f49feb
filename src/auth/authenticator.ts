import { errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from "jose";
import {
  InsufficientScopeError,
  InvalidTokenError,
  KeySetUnavailableError,
  MissingCredentialsError,
} from "../http/errors.ts";
import type { Principal } from "../http/api_module.ts";
import type { TokenCache } from "./token_cache.ts";

/** How tokens are verified. */
export interface AuthOptions {
  key: Uint8Array | JWTVerifyGetKey;
  /** The algorithms allowed for that key (see key_sources.ts). */
  algorithms: string[];
  issuer?: string;
  audience?: string;
  /** Verified tokens; omitted means every request verifies its signature. */
  cache?: TokenCache<Principal>;
}

/** Verifies a request's bearer token and returns the caller (synchronously when cached). */
export type Authenticate = (request: Request) => Principal | Promise<Principal>;

/** Tokens larger than this are refused before parsing. */
export const MAX_TOKEN_BYTES = 8192;
const CLOCK_TOLERANCE_SECONDS = 30;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** Builds the bearer-token check of contract §2; a cached token is answered synchronously. */
export function createAuthenticator(options: AuthOptions): Authenticate {
  const cache = options.cache;
  return (request) => {
    const header = request.headers.get("authorization");
    // A cached token passed bearerToken's syntax check before, so that regex is skipped.
    if (cache !== undefined && header !== null && header.startsWith("Bearer ")) {
      const known = cache.get(header.slice(7));
      if (known !== undefined) return known;
    }
    let token: string;
    try {
      token = bearerToken(header);
    } catch (error) {
      return Promise.reject(error);
    }
    return cache?.get(token) ?? verify(token);
  };

  async function verify(token: string): Promise<Principal> {
    let payload;
    try {
      // The key argument's two types are separate overloads of jwtVerify.
      ({ payload } = await jwtVerify(token, options.key as Uint8Array, {
        algorithms: options.algorithms,
        requiredClaims: ["exp"],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        issuer: options.issuer,
        audience: options.audience,
      }));
    } catch (error) {
      // jose throws plain TypeErrors for some key confusions: every failure is a bad token.
      if (error instanceof KeySetUnavailableError) throw error;
      throw new InvalidTokenError(describe(error));
    }
    const principal = {
      sub: typeof payload.sub === "string" ? payload.sub : "unknown",
      scopes: scopesOf(payload),
    };
    cache?.set(token, principal, payload.exp!);
    return principal;
  }
}

/** The token of an `Authorization: Bearer` header; throws the 401 errors of contract §2. */
function bearerToken(header: string | null): string {
  if (header === null || header.trim() === "") throw new MissingCredentialsError();
  if (header.length > MAX_TOKEN_BYTES + 7) throw new InvalidTokenError("The token is too large");
  const match = BEARER.exec(header);
  if (match !== null) return match[1];
  if (/^Bearer(\s|$)/i.test(header)) throw new InvalidTokenError("The bearer token is malformed");
  throw new MissingCredentialsError();
}

/** Throws InsufficientScopeError unless the caller has the scope. */
export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) throw new InsufficientScopeError(scope);
}

/** Scopes from `scope` (space-separated) or `scp` (string or array). */
export function scopesOf(payload: Record<string, unknown>): Set<string> {
  const scopes = new Set<string>();
  for (const claim of [payload.scope, payload.scp]) {
    if (typeof claim === "string") {
      for (const s of claim.split(" ")) if (s !== "") scopes.add(s);
    }
    if (Array.isArray(claim)) { for (const s of claim) if (typeof s === "string") scopes.add(s); }
  }
  return scopes;
}

/** A description safe to show: it names the rule broken, never keys or internals. */
function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return "The token has expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "The token is not valid yet";
    if (error.claim === "exp") return "The token has no valid exp claim";
    return `The token's "${error.claim}" claim is not accepted`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return "The token's algorithm is not allowed";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return "The token's signature is invalid";
  }
  return "The token is malformed or cannot be verified";
}
