import { fnv1a30 } from "../lib/fnv_hash.ts";

/**
 * Canonical customer texts by ordinal, a small integer each live customer holds until deleted (the
 * indexes name customers by it), found by id with no id string kept: a text starts with its id,
 * and ids lead to ordinals through a table probed by a 30-bit hash of the id.
 */
export class TextTable {
  #texts: (string | undefined)[] = [];
  /** Open addressing by id hash: a slot holds 1 + an ordinal (0: empty) and that id's hash. */
  #slots = new Int32Array(1024);
  #hashes = new Int32Array(1024);
  /** Ordinals of deleted customers, taken again before the table grows. */
  #free: number[] = [];
  #size = 0;
  /** The greatest id ever set, as UTF-16 units: get answers a new (greater) id without probing. */
  #maxId = new Uint16Array(ID_LENGTH);

  get size(): number {
    return this.#size;
  }

  /** One past the greatest ordinal in use or free: every ordinal is below it. */
  get ordinalLimit(): number {
    return this.#texts.length;
  }

  /** The text of the customer with this id. */
  get(id: string): string | undefined {
    const ordinal = this.ordinalOf(id);
    return ordinal === -1 ? undefined : this.#texts[ordinal];
  }

  /** The ordinal of the customer with this id, or -1. */
  ordinalOf(id: string): number {
    if (id.length !== ID_LENGTH || compareId(id, 0, this.#maxId) > 0) return -1;
    return this.#find(id, 0, idHash(id, 0));
  }

  /** The text of the live customer holding an ordinal. */
  textAt(ordinal: number): string | undefined {
    return this.#texts[ordinal];
  }

  /** The texts whose ids have this hash (for a caller that holds hashes, not ids). */
  under(hash: number): string[] {
    const texts: string[] = [];
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; this.#slots[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.#hashes[slot] === hash) texts.push(this.#texts[this.#slots[slot] - 1]!);
    }
    return texts;
  }

  /** Gives the text of a new id an ordinal (see ordinalOf for a known id); returns it. */
  add(text: string): number {
    const maxId = this.#maxId;
    if (compareId(text, ID_AT, maxId) > 0) {
      for (let i = 0; i < ID_LENGTH; i++) maxId[i] = text.charCodeAt(ID_AT + i);
    }
    const ordinal = this.#free.length > 0 ? this.#free.pop()! : this.#texts.length;
    this.#texts[ordinal] = text;
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    this.#place(idHash(text, ID_AT), ordinal);
    this.#size++;
    return ordinal;
  }

  /** Puts a newer text of the same id in an ordinal's place. */
  replace(ordinal: number, text: string): void {
    this.#texts[ordinal] = text;
  }

  /** Removes the customer holding an ordinal; the ordinal is free for a new one. */
  delete(ordinal: number): void {
    const text = this.#texts[ordinal];
    if (text === undefined) return;
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = idHash(text, ID_AT) & mask;
    while (slots[slot] !== ordinal + 1) slot = (slot + 1) & mask;
    // Backward-shift deletion: later entries of the run move up, so no probe stops early.
    for (let next = (slot + 1) & mask; slots[next] !== 0; next = (next + 1) & mask) {
      const home = this.#hashes[next] & mask;
      if (((next - home) & mask) >= ((next - slot) & mask)) {
        slots[slot] = slots[next];
        this.#hashes[slot] = this.#hashes[next];
        slot = next;
      }
    }
    slots[slot] = 0;
    this.#texts[ordinal] = undefined;
    this.#free.push(ordinal);
    this.#size--;
  }

  #find(key: string, keyAt: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let slot = hash & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.#hashes[slot] !== hash) continue;
      const ordinal = slots[slot] - 1;
      if (sameId(this.#texts[ordinal]!, key, keyAt)) return ordinal;
    }
    return -1;
  }

  #place(hash: number, ordinal: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = ordinal + 1;
    this.#hashes[slot] = hash;
  }

  #grow(): void {
    const [slots, hashes] = [this.#slots, this.#hashes];
    this.#slots = new Int32Array(slots.length * 2);
    this.#hashes = new Int32Array(slots.length * 2);
    for (let slot = 0; slot < slots.length; slot++) {
      if (slots[slot] !== 0) this.#place(hashes[slot], slots[slot] - 1);
    }
  }
}

/** Where a canonical text's id starts, and its length (a ULID). */
export const ID_AT = '{"id":"'.length;
export const ID_LENGTH = 26;

/** The hash of the 26-character id starting at `at` of `text` (FNV-1a, to 30 bits). */
export function idHash(text: string, at: number): number {
  return fnv1a30(text, at, at + ID_LENGTH);
}

/** The id a canonical text starts with, as a string of its own (a slice would keep the text). */
export function idOf(text: string): string {
  return JSON.parse(`"${text.slice(ID_AT, ID_AT + ID_LENGTH)}"`);
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DIGITS = new Int8Array(128).fill(0);
for (const [value, digit] of [...CROCKFORD].entries()) DIGITS[digit.charCodeAt(0)] = value;

/** A canonical text's id's time: its first 10 characters as a number, ordered as the ids are. */
export function idTime(text: string): number {
  let time = 0;
  for (let i = ID_AT; i < ID_AT + 10; i++) time = time * 32 + DIGITS[text.charCodeAt(i) & 0x7f];
  return time;
}

/** Compares two canonical texts' ids as strings compare. */
export function compareIds(a: string, b: string): number {
  for (let i = ID_AT; i < ID_AT + ID_LENGTH; i++) {
    const difference = a.charCodeAt(i) - b.charCodeAt(i);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Compares a canonical text's id with the id `id` (any string), as strings compare. */
export function compareIdWith(text: string, id: string): number {
  const shared = Math.min(ID_LENGTH, id.length);
  for (let i = 0; i < shared; i++) {
    const difference = text.charCodeAt(ID_AT + i) - id.charCodeAt(i);
    if (difference !== 0) return difference;
  }
  return ID_LENGTH - id.length;
}

/** The 26-character id at `at` of `text` compared with `units` (below 0, 0 or above 0). */
function compareId(text: string, at: number, units: Uint16Array): number {
  for (let i = 0; i < ID_LENGTH; i++) {
    const difference = text.charCodeAt(at + i) - units[i];
    if (difference !== 0) return difference;
  }
  return 0;
}

function sameId(text: string, key: string, keyAt: number): boolean {
  for (let i = 0; i < ID_LENGTH; i++) {
    if (text.charCodeAt(ID_AT + i) !== key.charCodeAt(keyAt + i)) return false;
  }
  return true;
}
