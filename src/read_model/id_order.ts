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
    if (slots.length === 0 || compare(slots[slots.length - 1], text, ID_AT, ID_LENGTH) < 0) {
      slots.push(text);
      return;
    }
    const at = this.#firstNotBefore(text, ID_AT, ID_LENGTH);
    if (at < slots.length && compare(slots[at], text, ID_AT, ID_LENGTH) === 0) {
      if (isTombstone(slots[at])) this.#tombstones--;
      slots[at] = text;
    } else slots.splice(at, 0, text);
  }

  /** Leaves a tombstone in place of the id's text; `id` is kept, so a string of its own. */
  remove(id: string): void {
    const at = this.#firstNotBefore(id, 0, id.length);
    const slots = this.#slots;
    if (at === slots.length || compare(slots[at], id, 0, id.length) !== 0) return;
    if (isTombstone(slots[at])) return;
    slots[at] = id;
    this.#tombstones++;
    if (this.#tombstones > 1024 && this.#tombstones * 4 > slots.length) {
      this.#slots = this.texts();
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

  /** The position of the first slot whose id is not less than the key's. */
  #firstNotBefore(key: string, keyAt: number, keyLength: number): number {
    let low = 0;
    let high = this.#slots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.#slots[mid], key, keyAt, keyLength) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
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
