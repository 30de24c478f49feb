import { ID_AT, ID_LENGTH } from "./text_table.ts";

/**
 * Live customers' texts in one array sorted by id, so no id string is kept per customer. A delete
 * leaves a tombstone (the bare id) until they are a quarter of the array: O(log n) amortised.
 */
export class IdOrder {
  #slots: string[] = [];
  /** Each slot's id's time: a binary search reads this compact array, not scattered texts. */
  #times = new Float64Array(1024);
  #tombstones = 0;

  get length(): number {
    return this.#slots.length;
  }

  /** The live text at a position, or undefined for a tombstone. */
  at(position: number): string | undefined {
    const slot = this.#slots[position];
    return isTombstone(slot) ? undefined : slot;
  }

  /** Every live text in id order (a new array). */
  texts(): string[] {
    return this.#slots.filter((slot) => !isTombstone(slot));
  }

  /** Adds a text, or puts it in the place of its id's previous text or tombstone. */
  put(text: string): void {
    const slots = this.#slots;
    const time = timeOf(text, ID_AT);
    if (slots.length === 0 || compare(slots[slots.length - 1], text, ID_AT, ID_LENGTH) < 0) {
      this.#insert(slots.length, text, time);
      return;
    }
    const at = this.#firstNotBefore(text, ID_AT, time);
    if (at < slots.length && compare(slots[at], text, ID_AT, ID_LENGTH) === 0) {
      if (isTombstone(slots[at])) this.#tombstones--;
      slots[at] = text;
    } else this.#insert(at, text, time);
  }

  /** Leaves a tombstone in place of the id's text; `id` is kept, so a string of its own. */
  remove(id: string): void {
    if (id.length !== ID_LENGTH) return;
    const at = this.#firstNotBefore(id, 0, timeOf(id, 0));
    const slots = this.#slots;
    if (at === slots.length || compare(slots[at], id, 0, ID_LENGTH) !== 0) return;
    if (isTombstone(slots[at])) return;
    slots[at] = id;
    this.#tombstones++;
    if (this.#tombstones > 1024 && this.#tombstones * 4 > slots.length) {
      this.#slots = this.texts();
      this.#times = new Float64Array(Math.max(1024, this.#slots.length * 2));
      for (const [i, text] of this.#slots.entries()) this.#times[i] = timeOf(text, ID_AT);
      this.#tombstones = 0;
    }
  }

  /** The position of the first slot whose id is greater than `id` (any string). */
  indexAfter(id: string): number {
    let low = 0;
    let high = this.#slots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.#slots[mid], id, 0, id.length) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The first slot whose id is not less than the id at `key[keyAt]`: by time, then by id. */
  #firstNotBefore(key: string, keyAt: number, time: number): number {
    const times = this.#times;
    let low = 0;
    let high = this.#slots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (times[mid] < time) low = mid + 1;
      else high = mid;
    }
    const slots = this.#slots;
    while (low < slots.length && times[low] === time) {
      if (compare(slots[low], key, keyAt, ID_LENGTH) >= 0) break;
      low++;
    }
    return low;
  }

  #insert(at: number, text: string, time: number): void {
    const length = this.#slots.length;
    if (length === this.#times.length) {
      const grown = new Float64Array(length * 2);
      grown.set(this.#times);
      this.#times = grown;
    }
    if (at === length) this.#slots.push(text);
    else {
      this.#slots.splice(at, 0, text);
      this.#times.copyWithin(at + 1, at, length);
    }
    this.#times[at] = time;
  }
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DIGITS = new Int8Array(128).fill(-1);
for (const [value, digit] of [...CROCKFORD].entries()) DIGITS[digit.charCodeAt(0)] = value;

/** A ULID's time: its first 10 characters as a number (any other character counts as 0). */
function timeOf(text: string, at: number): number {
  let time = 0;
  for (let i = at; i < at + 10; i++) {
    time = time * 32 + Math.max(0, DIGITS[text.charCodeAt(i) & 0x7f]);
  }
  return time;
}

function isTombstone(slot: string): boolean {
  return slot.length === ID_LENGTH;
}

/** Compares a slot's id with `key[keyAt, keyAt + keyLength)` as strings compare. */
function compare(slot: string, key: string, keyAt: number, keyLength: number): number {
  const slotAt = isTombstone(slot) ? 0 : ID_AT;
  const shared = Math.min(ID_LENGTH, keyLength);
  for (let i = 0; i < shared; i++) {
    const difference = slot.charCodeAt(slotAt + i) - key.charCodeAt(keyAt + i);
    if (difference !== 0) return difference;
  }
  return ID_LENGTH - keyLength;
}
