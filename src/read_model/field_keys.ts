import { ADDRESS_KEYS, NAME_AT, TEXT_FIELDS } from "./customer_fields.ts";
import { folded, TRIGRAM, trigramAt } from "./trigrams.ts";

/** No value, a value shorter than a trigram (kept whole), or a value's trigrams. */
export const MISSING = 0, SHORT = 1, TRIGRAMS = 2;

/**
 * What the index keeps of one text field's value: nothing, the short value case-folded, or the
 * trigram keys of the folded value (repeats and all). Reused from customer to customer.
 */
export class FieldKeys {
  kind: typeof MISSING | typeof SHORT | typeof TRIGRAMS = MISSING;
  short = "";
  keys: number[] = [];
  count = 0;

  /** True when the index keeps the same of both. */
  sameAs(other: FieldKeys): boolean {
    if (this.kind !== other.kind) return false;
    if (this.kind === SHORT) return this.short === other.short;
    if (this.count !== other.count) return false;
    for (let i = 0; i < this.count; i++) if (this.keys[i] !== other.keys[i]) return false;
    return true;
  }

  /** True when `key` is one of the trigram keys. */
  holds(key: number): boolean {
    for (let i = 0; i < this.count; i++) if (this.keys[i] === key) return true;
    return false;
  }
}

/** A FieldKeys per text field, in TEXT_FIELDS order. */
export const fieldKeysList = (): FieldKeys[] => TEXT_FIELDS.map(() => new FieldKeys());

/**
 * Reads the keys of every text field of a canonical JSON text (customer_text.ts) into `into`,
 * in place: plain ASCII values are folded and split unit by unit, with no string made.
 */
export function readFieldKeys(json: string, into: FieldKeys[]): void {
  let at = valueKeys(json, NAME_AT, into[0]);
  at = valueKeys(json, at + ',"email":'.length, into[1]);
  at = valueKeys(json, at + ',"phone":'.length, into[2]);
  at += ',"address":'.length;
  if (json.charCodeAt(at) === 0x6e) {
    for (let f = 3; f < into.length; f++) into[f].kind = MISSING;
    return;
  }
  at++;
  for (let i = 0; i < ADDRESS_KEYS.length; i++) {
    at = valueKeys(json, at + (i === 0 ? 0 : 1) + ADDRESS_KEYS[i].length, into[3 + i]);
  }
}

/** The keys of the JSON string or null at `at`; returns the index just after it. */
function valueKeys(json: string, at: number, into: FieldKeys): number {
  if (json.charCodeAt(at) === 0x6e) {
    into.kind = MISSING;
    return at + 4;
  }
  const start = at + 1;
  let end = start;
  let plain = true;
  for (;; end++) {
    const unit = json.charCodeAt(end);
    if (unit === 0x22) break;
    if (unit === 0x5c) {
      plain = false;
      end++;
    } else if (unit >= 0x80) plain = false;
  }
  if (!plain) {
    stringKeys(folded(JSON.parse(json.slice(at, end + 1))), into);
    return end + 1;
  }
  const length = end - start;
  if (length < TRIGRAM) {
    into.kind = SHORT;
    into.short = json.slice(start, end).toLowerCase();
    return end + 1;
  }
  into.kind = TRIGRAMS;
  into.count = length - TRIGRAM + 1;
  let a = fold(json.charCodeAt(start));
  let b = fold(json.charCodeAt(start + 1));
  for (let i = 0; i < into.count; i++) {
    const c = fold(json.charCodeAt(start + i + 2));
    into.keys[i] = (a << 14) | (b << 7) | c;
    a = b;
    b = c;
  }
  return end + 1;
}

/** The keys of a folded value (any text). */
export function stringKeys(text: string, into: FieldKeys): void {
  if (text.length < TRIGRAM) {
    into.kind = SHORT;
    into.short = text;
    return;
  }
  into.kind = TRIGRAMS;
  into.count = text.length - TRIGRAM + 1;
  for (let i = 0; i < into.count; i++) into.keys[i] = trigramAt(text, i);
}

/** An ASCII unit folded as toLowerCase folds it. */
function fold(unit: number): number {
  return unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
}
