import type { PostingSet } from "../read_model/posting_set.ts";

/** Sets up to this size are sorted arrays; larger ones bitsets over every ordinal. */
const LIST_MAX = 4096;

/**
 * A set of ordinals a search works with, copied from the index when the search starts: a sorted
 * array when small, else a bitset of `limit` bits (one per ordinal in use).
 */
export class OrdinalSet {
  private constructor(
    readonly size: number,
    readonly list: Int32Array | undefined,
    readonly bits: Uint32Array | undefined,
  ) {}

  static empty(): OrdinalSet {
    return new OrdinalSet(0, new Int32Array(0), undefined);
  }

  /** A set of these ordinals, sorted ascending. */
  static fromSorted(list: Int32Array): OrdinalSet {
    return new OrdinalSet(list.length, list, undefined);
  }

  /** A copy of a posting set (undefined: no customer). */
  static of(postings: PostingSet | number | undefined, limit: number): OrdinalSet {
    if (postings === undefined) return OrdinalSet.empty();
    if (typeof postings === "number") return new OrdinalSet(1, Int32Array.of(postings), undefined);
    if (postings.size <= LIST_MAX) {
      return new OrdinalSet(postings.size, postings.toArray(), undefined);
    }
    const bits = new Uint32Array((limit + 31) >>> 5);
    postings.orInto(bits);
    return new OrdinalSet(postings.size, undefined, bits);
  }

  has(ordinal: number): boolean {
    const bits = this.bits;
    if (bits !== undefined) return (bits[ordinal >>> 5] & (1 << (ordinal & 31))) !== 0;
    const list = this.list!;
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (list[middle] < ordinal) low = middle + 1;
      else if (list[middle] > ordinal) high = middle - 1;
      else return true;
    }
    return false;
  }

  /** The members in ascending order, as an array. */
  toArray(): Int32Array {
    if (this.list !== undefined) return this.list;
    const list = new Int32Array(this.size);
    let i = 0;
    this.forEach((ordinal) => list[i++] = ordinal);
    return list;
  }

  /** The members in ascending order. */
  forEach(visit: (ordinal: number) => void): void {
    if (this.list !== undefined) {
      for (const ordinal of this.list) visit(ordinal);
      return;
    }
    const bits = this.bits!;
    for (let word = 0; word < bits.length; word++) {
      for (let set = bits[word]; set !== 0; set &= set - 1) {
        visit((word << 5) | (31 - Math.clz32(set & -set)));
      }
    }
  }

  and(other: OrdinalSet): OrdinalSet {
    if (this.size > other.size) return other.and(this);
    const list = this.list ?? other.list;
    if (list !== undefined) {
      const by = list === this.list ? other : this;
      const kept = list.filter((ordinal) => by.has(ordinal));
      return new OrdinalSet(kept.length, kept, undefined);
    }
    const [a, b] = [this.bits!, other.bits!];
    const bits = new Uint32Array(Math.min(a.length, b.length));
    let size = 0;
    for (let i = 0; i < bits.length; i++) size += popcount(bits[i] = a[i] & b[i]);
    return OrdinalSet.#compact(size, bits);
  }

  or(other: OrdinalSet, limit: number): OrdinalSet {
    if (this.size + other.size <= LIST_MAX && this.list !== undefined && other.list) {
      const union = [...new Set([...this.list, ...other.list])].sort((x, y) => x - y);
      return new OrdinalSet(union.length, Int32Array.from(union), undefined);
    }
    const bits = new Uint32Array((limit + 31) >>> 5);
    for (const set of [this, other]) {
      if (set.bits !== undefined) {
        for (let i = 0; i < set.bits.length; i++) bits[i] |= set.bits[i];
      } else for (const ordinal of set.list!) bits[ordinal >>> 5] |= 1 << (ordinal & 31);
    }
    let size = 0;
    for (let i = 0; i < bits.length; i++) size += popcount(bits[i]);
    return OrdinalSet.#compact(size, bits);
  }

  /** The set of the bits set in `bits` (which it then owns). */
  static ofBits(bits: Uint32Array): OrdinalSet {
    let size = 0;
    for (let i = 0; i < bits.length; i++) size += popcount(bits[i]);
    return OrdinalSet.#compact(size, bits);
  }

  static #compact(size: number, bits: Uint32Array): OrdinalSet {
    if (size > LIST_MAX) return new OrdinalSet(size, undefined, bits);
    const list = new Int32Array(size);
    let i = 0;
    new OrdinalSet(size, undefined, bits).forEach((ordinal) => list[i++] = ordinal);
    return new OrdinalSet(size, list, undefined);
  }
}

function popcount(word: number): number {
  word -= (word >>> 1) & 0x55555555;
  word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
  return (((word + (word >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
