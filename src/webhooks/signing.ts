/** Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret. */
import { createHash, type Hash, randomBytes } from "node:crypto";

const PREFIX = "whsec_";
const BLOCK = 64;

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

/** A secret's HMAC state after its padded key block, so each signature hashes only the message. */
interface KeyState {
  inner: Hash;
  outer: Hash;
}

/** Key states by secret: every delivery to an endpoint signs with the same one or two. */
const keys = new Map<string, KeyState>();

function keyState(secret: string): KeyState {
  let state = keys.get(secret);
  if (state !== undefined) return state;
  let key: Uint8Array = Buffer.from(secret.slice(PREFIX.length), "base64");
  if (key.length > BLOCK) key = createHash("sha256").update(key).digest();
  const inner = new Uint8Array(BLOCK).fill(0x36);
  const outer = new Uint8Array(BLOCK).fill(0x5c);
  for (let i = 0; i < key.length; i++) inner[i] ^= key[i], outer[i] ^= key[i];
  state = {
    inner: createHash("sha256").update(inner),
    outer: createHash("sha256").update(outer),
  };
  // Rotated secrets leave the map in time: it is emptied when it outgrows any real use.
  if (keys.size >= 1000) keys.clear();
  keys.set(secret, state);
  return state;
}

/** The `webhook-signature` header value: one `v1,` signature per secret, space-separated. */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): string {
  const head = `${id}.${timestamp}.`;
  let header = "";
  for (const secret of secrets) {
    const { inner, outer } = keyState(secret);
    const digest = inner.copy().update(head).update(body).digest();
    header += `${header === "" ? "" : " "}v1,${outer.copy().update(digest).digest("base64")}`;
  }
  return header;
}
