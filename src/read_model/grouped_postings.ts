import { sortPairs } from "../lib/pair_sort.ts";
import { type FieldKeys, TRIGRAMS } from "./field_keys.ts";
import type { FieldPostings } from "./field_postings.ts";

/** Trigram adds and deletes one flush collects before applying them, at most this many each. */
const GROUPED_MAX = 1 << 18;
/** The most trigrams one customer's fields have, with a margin. */
const ROOM = 4096;
/** Keys at or above this (trigrams with non-ASCII units) are applied at once, not grouped. */
const GROUPED_KEYS = 0x200000;

/** One side of the batch: (field << 21 | trigram key, ordinal) pairs. */
class Pairs {
  keys = new Uint32Array(1024);
  values = new Int32Array(1024);
  count = 0;

  push(key: number, value: number): void {
    if (this.count === this.keys.length) {
      const [keys, values] = [new Uint32Array(this.count * 2), new Int32Array(this.count * 2)];
      keys.set(this.keys);
      values.set(this.values);
      [this.keys, this.values] = [keys, values];
    }
    this.keys[this.count] = key;
    this.values[this.count++] = value;
  }
}

/**
 * Trigram postings set aside while a flush goes through its changes, then applied set by set:
 * each set is visited once per flush, with its containers warm, instead of once per customer.
 */
export class GroupedPostings {
  #adds = new Pairs();
  #deletes = new Pairs();
  #spare = { keys: new Uint32Array(0), values: new Int32Array(0) };

  constructor(readonly fields: readonly FieldPostings[]) {}

  /** True when a customer's worth more may not fit: apply first. */
  get full(): boolean {
    return Math.max(this.#adds.count, this.#deletes.count) + ROOM > GROUPED_MAX;
  }

  /** Links a value: its trigrams set aside, its short form or absence at once. */
  link(field: number, value: FieldKeys, ordinal: number): void {
    if (value.kind !== TRIGRAMS) {
      this.fields[field].link(value, ordinal);
      return;
    }
    for (let k = 0; k < value.count; k++) this.#put(this.#adds, field, value.keys[k], ordinal);
  }

  /** Moves an ordinal from one value to another: only the trigrams that differ, set aside. */
  change(field: number, before: FieldKeys, after: FieldKeys, ordinal: number): void {
    if (before.kind !== TRIGRAMS || after.kind !== TRIGRAMS) {
      this.fields[field].unlink(before, ordinal);
      this.link(field, after, ordinal);
      return;
    }
    for (let i = 0; i < before.count; i++) {
      const key = before.keys[i];
      if (!after.holds(key)) this.#put(this.#deletes, field, key, ordinal);
    }
    for (let i = 0; i < after.count; i++) {
      const key = after.keys[i];
      if (!before.holds(key)) this.#put(this.#adds, field, key, ordinal);
    }
  }

  /** Applies what was set aside: deletes, then adds. */
  apply(): void {
    this.#applySide(this.#deletes, false);
    this.#applySide(this.#adds, true);
  }

  #put(side: Pairs, field: number, key: number, ordinal: number): void {
    if (key < GROUPED_KEYS) side.push((field << 21) | key, ordinal);
    else if (side === this.#adds) this.fields[field].trigramFor(key).add(ordinal);
    else this.fields[field].deleteTrigram(key, ordinal);
  }

  #applySide(side: Pairs, adding: boolean): void {
    const count = side.count;
    if (count === 0) return;
    side.count = 0;
    if (this.#spare.keys.length < count) {
      this.#spare = {
        keys: new Uint32Array(side.keys.length),
        values: new Int32Array(side.keys.length),
      };
    }
    const { keys, values } = sortPairs(side.keys, side.values, count, this.#spare);
    for (let i = 0; i < count;) {
      const key = keys[i];
      const postings = this.fields[key >>> 21];
      const trigram = key & 0x1fffff;
      if (adding) {
        const set = postings.trigramFor(trigram);
        for (; i < count && keys[i] === key; i++) set.add(values[i]);
      } else for (; i < count && keys[i] === key; i++) postings.deleteTrigram(trigram, values[i]);
    }
  }
}
