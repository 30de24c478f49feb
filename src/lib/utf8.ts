const lenient = new TextDecoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes UTF-8 as `new TextDecoder("utf-8", { fatal: true })` does, throwing a TypeError on
 * malformed input, but faster: Deno's fatal decoder goes through a copy in Rust on every call,
 * the lenient one builds the string directly. Malformed input always decodes leniently to
 * U+FFFD, so only a text holding one is decoded again strictly (which throws, or returns the same
 * text when the U+FFFD was really there). A text without characters above U+00FF is stored one
 * byte per character, where looking for U+FFFD takes no scan at all.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const text = lenient.decode(bytes);
  return text.includes("\uFFFD") ? strict.decode(bytes) : text;
}
