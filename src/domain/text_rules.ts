/**
 * The character rules of text fields as regex class bodies, shared by the validator and the
 * OpenAPI schemas; `\uXXXX` escapes and ranges only, which every JSON Schema dialect reads.
 */

/** C0 and C1 control characters (Unicode category Cc). */
export const CONTROL_CHARS = "\\u0000-\\u001f\\u007f-\\u009f";

/** UTF-16 surrogates: in a Unicode-aware pattern they match only a lone (unpaired) one. */
export const SURROGATES = "\\ud800-\\udfff";

/** What String#trim strips: white space (tab and line breaks included) and the BOM. */
export const TRIMMED_CHARS =
  "\\u0009-\\u000d \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/** Characters that show nothing on their own, in the BMP; text_rules_test.ts derives the list. */
export const INVISIBLE_CHARS = "\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u034f\\u0600-\\u0605" +
  "\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180b-\\u180f" +
  "\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0" +
  "\\ufff0-\\ufffb";

const VISIBLE = new RegExp(`[^${INVISIBLE_CHARS}${SURROGATES}]`, "u");

/** True when the string holds a lone surrogate, which no UTF-8 text can carry. */
export function hasLoneSurrogate(value: string): boolean {
  return !value.isWellFormed();
}

/** True when the string holds a C0 or C1 control character; a unit scan beats the pattern. */
export function hasControlChar(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** True when a character shows something; printable ASCII answers without the pattern. */
export function hasVisibleChar(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0x20 && code < 0x7f) return true;
  }
  return VISIBLE.test(value);
}

/** True when the string has more than `max` code points; counts them only when it may. */
export function longerThan(value: string, max: number): boolean {
  return value.length > max && codePoints(value) > max;
}

/** The length in code points, as contract §3 counts characters. */
export function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}
