/** The service's JWT_SECRET and a token for it, as an operator would set them up. */
import { SignJWT } from "jose";

/** A random JWT_SECRET of 48 hex characters. */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** An HS256 token for the secret, with both customer scopes, valid for a day. */
export function mintToken(secret: string): Promise<string> {
  return new SignJWT({ scope: "customers:read customers:write" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject("bench")
    .setIssuedAt()
    .setExpirationTime("24h")
    .sign(new TextEncoder().encode(secret));
}
