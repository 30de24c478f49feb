import { SignJWT } from "jose";

/** What a minted token says. */
export interface MintOptions {
  sub: string;
  scope: string;
  ttlSeconds: number;
}

/** Signs an HS256 token with exp, iat and the given scope. */
export function mintToken(
  secret: Uint8Array,
  options: MintOptions,
  issuer?: string,
  audience?: string,
): Promise<string> {
  let jwt = new SignJWT({ scope: options.scope })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + options.ttlSeconds);
  if (issuer !== undefined) jwt = jwt.setIssuer(issuer);
  if (audience !== undefined) jwt = jwt.setAudience(audience);
  return jwt.sign(secret);
}

/** Parses a duration such as 90s, 15m, 1h or 7d into seconds. */
export function parseTtl(text: string): number {
  const match = /^([0-9]{1,9})([smhd]?)$/.exec(text);
  if (match === null) throw new Error(`TTL "${text}" must look like 90s, 15m, 1h or 7d`);
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2]]!;
  return Number(match[1]) * unit;
}
