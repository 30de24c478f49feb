import { createHash } from "node:crypto";

/** A SHA-256 of the body's canonical JSON (keys sorted), so key order and spacing do not matter. */
export function requestHash(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body)).digest("base64url");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
