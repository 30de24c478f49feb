import { ID_AT, ID_LENGTH } from "./text_table.ts";

/**
 * Live customers in id order, for the list: their canonical texts in one array sorted by id (a
 * canonical text starts with its id, text_table.ts), so no id string is kept per customer. ULIDs
 * are created in order, so a create appends; an update puts the new text in the old one's place
 * (a binary search). A delete leaves the id itself behind (a tombstone, 26 characters, which no
 * text is), until tombstones are a quarter of the array, so a delete costs O(log n) amortised
 * instead of an O(n) splice, and a deleted customer's text is not kept.
 */
export class IdOrder {
  #slots: string[] = [];
  /**
   * Each slot's id's time (its first 10 characters as a number): a binary search for a slot reads
   * this compact array instead of a text per step, scattered over the heap (an update replayed
   * from a log of a million events spent most of its time in those cache misses).
   */
  #times = new Float64Array(1024);
  #tombstones = 0;

  /** The number of slots, tombstones included. */
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

  /**
   * The position of the first slot whose id is not less than the 26-character id at `key[keyAt]`,
   * whose time is `time`: by time in #times, then by id among the slots of that time.
   */
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

/**
 * A ULID's time: its first 10 characters (Crockford base32, 50 bits) as a number; ids sort as
 * their times do, then by the rest. Any other character counts as 0 (only ULIDs are put).
 */
function timeOf(text: string, at: number): number {
  let time = 0;
  for (let i = at; i < at + 10; i++) {
    time = time * 32 + Math.max(0, DIGITS[text.charCodeAt(i) & 0x7f]);
  }
  return time;
}

/** A tombstone is a bare id; a text is longer. */
function isTombstone(slot: string): boolean {
  return slot.length === ID_LENGTH;
}

/**
 * Compares a slot's id with `key[keyAt, keyAt + keyLength)` as strings compare (by UTF-16 code
 * units, a prefix first): negative when the slot's id sorts first.
 */
function compare(slot: string, key: string, keyAt: number, keyLength: number): number {
  const slotAt = isTombstone(slot) ? 0 : ID_AT;
  const shared = Math.min(ID_LENGTH, keyLength);
  for (let i = 0; i < shared; i++) {
    const difference = slot.charCodeAt(slotAt + i) - key.charCodeAt(keyAt + i);
    if (difference !== 0) return difference;
  }
  return ID_LENGTH - keyLength;
}
