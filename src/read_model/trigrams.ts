/** Values shorter than this have no trigram; the index keeps them whole (short values). */
export const TRIGRAM = 3;

/**
 * The key of the three UTF-16 units of `text` at `at`: exact, never a hash, so a trigram's set
 * holds only values that contain it. Three ASCII units pack into a small integer.
 */
export function trigramAt(text: string, at: number): number {
  const a = text.charCodeAt(at);
  const b = text.charCodeAt(at + 1);
  const c = text.charCodeAt(at + 2);
  if ((a | b | c) < 0x80) return (a << 14) | (b << 7) | c;
  return 0x200000 + a * 0x100000000 + b * 0x10000 + c;
}

/** The distinct trigram keys of a (lower-cased) text, in order of first appearance. */
export function trigramsOf(text: string): number[] {
  const keys: number[] = [];
  for (let at = 0; at + TRIGRAM <= text.length; at++) {
    const key = trigramAt(text, at);
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** The case folding of every text comparison in search: as String.prototype.toLowerCase. */
export function folded(text: string): string {
  return text.toLowerCase();
}
