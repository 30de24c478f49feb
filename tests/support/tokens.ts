/** JWT helpers for black-box tests: tokens signed like a real identity provider would. */
import { SignJWT } from "jose";

/** The HS256 secret every test server is started with (≥ 32 bytes). */
export const TEST_SECRET = "e2e-test-secret-0123456789-abcdefghijklmnopqrstuvwxyz";

/** Both scopes, as a client allowed to read and write holds them. */
export const ALL_SCOPES = "customers:read customers:write";

/** What a test may vary in a token. */
export interface TokenOptions {
  sub?: string;
  /** Space-separated scopes; `null` leaves the `scope` claim out. */
  scope?: string | null;
  /** Lifetime from now; negative makes an already expired token. */
  ttlSeconds?: number;
  secret?: string;
  extraClaims?: Record<string, unknown>;
  omitExp?: boolean;
}

/** Signs an HS256 JWT with `sub`, `iat`, `exp` and `scope` (defaults: both scopes, 1 h). */
export async function makeToken(options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {};
  const scope = options.scope === undefined ? ALL_SCOPES : options.scope;
  if (scope !== null) claims.scope = scope;
  Object.assign(claims, options.extraClaims);
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.sub ?? "e2e-tester")
    .setIssuedAt(now);
  if (!options.omitExp) jwt = jwt.setExpirationTime(now + (options.ttlSeconds ?? 3600));
  return await jwt.sign(new TextEncoder().encode(options.secret ?? TEST_SECRET));
}

/** An unsigned `alg: none` token with otherwise valid claims; servers must reject it. */
export function makeUnsignedToken(scope = ALL_SCOPES): string {
  const b64 = (value: unknown) =>
    btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "mallory", exp: now + 3600, scope })}.`;
}

/** `Authorization: Bearer <token>` as a header record. */
export function authHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
