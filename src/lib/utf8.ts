const lenient = new TextDecoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes UTF-8 as a fatal TextDecoder does, without the copy Deno's fatal decoder makes: decodes
 * leniently, and strictly again only when the text holds U+FFFD.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const text = lenient.decode(bytes);
  return text.includes("\uFFFD") ? strict.decode(bytes) : text;
}
