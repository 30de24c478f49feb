/** FNV-1a of `text`'s UTF-16 units in [start, end) to 30 bits: a small integer on every V8. */
export function fnv1a30(text: string, start = 0, end = text.length): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/** The FNV-1a offset basis and prime, for a caller that folds units as it scans (emailHash). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;
