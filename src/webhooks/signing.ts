/** Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret. */
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

/** The `webhook-signature` header value: one `v1,` signature per secret, space-separated. */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets.map((secret) => {
    const key = Buffer.from(secret.slice(PREFIX.length), "base64");
    return `v1,${createHmac("sha256", key).update(content).digest("base64")}`;
  }).join(" ");
}
