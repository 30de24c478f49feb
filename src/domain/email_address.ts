/** The longest email address contract §3 allows (RFC 5321's path limit less the brackets). */
export const EMAIL_MAX = 254;

const DOT = 0x2e;
const HYPHEN = 0x2d;
/** Character classes of ASCII codes: what a dot-atom local part, a label and a TLD may hold. */
const ATEXT = 1;
const LABEL = 2;
const LETTER = 4;
const CLASSES = new Uint8Array(128);
for (const c of "!#$%&'*+/=?^_`{|}~-") CLASSES[c.charCodeAt(0)] |= ATEXT;
for (const c of "0123456789") CLASSES[c.charCodeAt(0)] |= ATEXT | LABEL;
for (let code = 0x41; code <= 0x5a; code++) {
  CLASSES[code] |= ATEXT | LABEL | LETTER;
  CLASSES[code + 0x20] |= ATEXT | LABEL | LETTER;
}

/** True for a plausible address: ASCII dot-atom local part, `@`, a DNS domain of 2+ labels. */
export function isValidEmail(email: string): boolean {
  if (email.length > EMAIL_MAX) return false;
  const at = email.lastIndexOf("@");
  if (at <= 0 || at > 64 || email.length - at - 1 > 253) return false;
  if (!isDotAtom(email, 0, at)) return false;
  let labels = 0;
  let start = at + 1;
  let last = start;
  for (let i = start; i <= email.length; i++) {
    if (i < email.length && email.charCodeAt(i) !== DOT) continue;
    if (!isLabel(email, start, i)) return false;
    labels++;
    last = start;
    start = i + 1;
  }
  return labels >= 2 && isTopLabel(email, last, email.length);
}

function classOf(code: number): number {
  return code < 128 ? CLASSES[code] : 0;
}

/** atext runs separated by single dots, neither first nor last. */
function isDotAtom(text: string, from: number, to: number): boolean {
  let afterDot = true;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code === DOT) {
      if (afterDot) return false;
      afterDot = true;
    } else if (classOf(code) & ATEXT) afterDot = false;
    else return false;
  }
  return !afterDot;
}

/** 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit. */
function isLabel(text: string, from: number, to: number): boolean {
  const length = to - from;
  if (length < 1 || length > 63) return false;
  if (text.charCodeAt(from) === HYPHEN || text.charCodeAt(to - 1) === HYPHEN) return false;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code !== HYPHEN && !(classOf(code) & LABEL)) return false;
  }
  return true;
}

/** A top-level label (already a valid label): 2 to 63 letters, or `xn--` and more. */
function isTopLabel(text: string, from: number, to: number): boolean {
  if (to - from > 4 && text.startsWith("xn--", from)) return true;
  if (to - from < 2) return false;
  for (let i = from; i < to; i++) if (!(classOf(text.charCodeAt(i)) & LETTER)) return false;
  return true;
}
