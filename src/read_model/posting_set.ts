import { BLOCK_SIZES, type BlockArena } from "./block_arena.ts";
import {
  andContainersInto,
  arrayOf,
  BITMAP_SIZE as BITMAP,
  bitmapOf,
  forEachIn,
  grownBlock,
  holdsLow,
  lowIndex,
  orBlockInto,
  removeLow,
  sortedIndex,
} from "./posting_blocks.ts";

/** A set stays one sorted array up to this many members. */
const SMALL_MAX = 32;
/** A container is a sorted array up to this many members, then a bitmap. */
const ARRAY_MAX = 4096;

/**
 * A set of customer ordinals, compact at any density (a roaring bitmap's layout): a small set is
 * one sorted array; a larger one is split by the ordinal's high 16 bits into containers, each a
 * sorted array of the low bits up to ARRAY_MAX members, else a 65,536-bit bitmap, in arena blocks.
 */
export class PostingSet {
  readonly #arena: BlockArena;
  #small: number[] | undefined = [];
  /** Per high 16 bits: the container's block address (-1: none), members and size class. */
  #addresses: number[] = [];
  #counts: number[] = [];
  #sizes: number[] = [];
  #size = 0;
  /** The container an add went to last, whose count is only here while #hotCount >= 0. */
  #hotHigh = -1;
  #hotCount = -1;
  #hotUnits: Uint16Array = EMPTY;
  #hotAt = 0;
  /** The hot container's capacity, or BITMAP for a bitmap. */
  #hotCapacity = 0;

  constructor(arena: BlockArena) {
    this.#arena = arena;
  }

  get size(): number {
    return this.#size;
  }

  has(ordinal: number): boolean {
    this.#cool();
    const small = this.#small;
    if (small !== undefined) return sortedIndex(small, ordinal) >= 0;
    const high = ordinal >>> 16;
    const address = this.#addresses[high];
    if (address === undefined || address === -1) return false;
    const bitmap = this.#sizes[high] === BITMAP;
    return holdsLow(this.#arena, address, this.#counts[high], bitmap, ordinal & 0xffff);
  }

  /** Adds an ordinal; false when it was a member already. */
  add(ordinal: number): boolean {
    // Most adds go to the container the last one went to, past its end: its fields, no arrays.
    if ((ordinal >>> 16) === this.#hotHigh && this.#hotCount >= 0) {
      const units = this.#hotUnits;
      const at = this.#hotAt;
      const count = this.#hotCount;
      const low = ordinal & 0xffff;
      if (this.#hotCapacity === BITMAP) {
        const bit = 1 << (low & 15);
        if ((units[at + (low >>> 4)] & bit) !== 0) return false;
        units[at + (low >>> 4)] |= bit;
        this.#hotCount = count + 1;
        this.#size++;
        return true;
      }
      if (units[at + count - 1] < low && count < this.#hotCapacity) {
        units[at + count] = low;
        this.#hotCount = count + 1;
        this.#size++;
        return true;
      }
    }
    this.#cool();
    const small = this.#small;
    if (small !== undefined) {
      const at = small.length === 0 || small[small.length - 1] < ordinal
        ? -small.length - 1
        : sortedIndex(small, ordinal);
      if (at >= 0) return false;
      small.splice(-at - 1, 0, ordinal);
      this.#size++;
      if (this.#size > SMALL_MAX) {
        this.#small = undefined;
        for (const member of small) this.#addToContainer(member);
      }
      return true;
    }
    if (!this.#addToContainer(ordinal)) return false;
    this.#size++;
    return true;
  }

  /** Removes an ordinal; false when it was not a member. */
  delete(ordinal: number): boolean {
    this.#cool();
    const small = this.#small;
    if (small !== undefined) {
      const at = sortedIndex(small, ordinal);
      if (at < 0) return false;
      small.splice(at, 1);
      this.#size--;
      return true;
    }
    const high = ordinal >>> 16;
    const address = this.#addresses[high];
    if (address === undefined || address === -1) return false;
    const count = this.#counts[high];
    const bitmap = this.#sizes[high] === BITMAP;
    if (!removeLow(this.#arena, address, count, bitmap, ordinal & 0xffff)) return false;
    if (bitmap && count - 1 < ARRAY_MAX / 2) {
      this.#addresses[high] = arrayOf(this.#arena, address, count - 1);
      this.#sizes[high] = this.#arena.granted;
      this.#arena.release(address, BLOCK_SIZES.length - 1);
    } else if (!bitmap && count === 1) {
      this.#arena.release(address, this.#sizes[high]);
      this.#addresses[high] = -1;
    }
    this.#counts[high] = count - 1;
    this.#size--;
    return true;
  }

  /** Calls `visit` with each member in ascending order. */
  forEach(visit: (ordinal: number) => void): void {
    this.#cool();
    if (this.#small !== undefined) {
      for (const ordinal of this.#small) visit(ordinal);
      return;
    }
    for (let high = 0; high < this.#addresses.length; high++) {
      const address = this.#addresses[high];
      if (address === -1) continue;
      const bitmap = this.#sizes[high] === BITMAP;
      forEachIn(this.#arena, address, this.#counts[high], bitmap, high << 16, visit);
    }
  }

  /** Sets each member's bit in `words` (bit `o & 31` of word `o >>> 5`); `words` covers them. */
  orInto(words: Uint32Array): void {
    this.#cool();
    if (this.#small !== undefined) {
      for (const ordinal of this.#small) words[ordinal >>> 5] |= 1 << (ordinal & 31);
      return;
    }
    for (let high = 0; high < this.#addresses.length; high++) {
      const address = this.#addresses[high];
      if (address === -1) continue;
      const bitmap = this.#sizes[high] === BITMAP;
      orBlockInto(this.#arena, address, this.#counts[high], bitmap, high, words);
    }
  }

  /** Clears in `words` (a bitset like orInto's) each bit not a member's, with no bitset made. */
  andInto(words: Uint32Array): void {
    this.#cool();
    const small = this.#small;
    if (small === undefined) {
      return andContainersInto(this.#arena, this.#addresses, this.#counts, this.#sizes, words);
    }
    const kept = small.filter((o) => (words[o >>> 5] & (1 << (o & 31))) !== 0);
    words.fill(0);
    for (const ordinal of kept) words[ordinal >>> 5] |= 1 << (ordinal & 31);
  }

  /** The members in ascending order (a new array). */
  toArray(): Int32Array {
    const out: number[] = [];
    this.forEach((ordinal) => out.push(ordinal));
    return Int32Array.from(out);
  }

  #heat(high: number, units: Uint16Array, at: number, count: number, capacity: number): void {
    [this.#hotHigh, this.#hotUnits, this.#hotAt] = [high, units, at];
    [this.#hotCount, this.#hotCapacity] = [count, capacity];
  }

  /** Writes the hot container's count back; the next add to it may make it hot again. */
  #cool(): void {
    if (this.#hotCount < 0) return;
    this.#counts[this.#hotHigh] = this.#hotCount;
    this.#hotCount = -1;
  }

  #addToContainer(ordinal: number): boolean {
    const high = ordinal >>> 16;
    const low = ordinal & 0xffff;
    const arena = this.#arena;
    while (this.#addresses.length <= high) {
      this.#addresses.push(-1);
      this.#counts.push(0);
      this.#sizes.push(0);
    }
    let address = this.#addresses[high];
    if (address === -1) {
      address = arena.allocate(0);
      arena.slabs[address >>> 16][address & 0xffff] = low;
      this.#addresses[high] = address;
      this.#counts[high] = 1;
      this.#sizes[high] = arena.granted;
      return true;
    }
    const count = this.#counts[high];
    let units = arena.slabs[address >>> 16];
    let at = address & 0xffff;
    if (this.#sizes[high] === BITMAP) {
      const bit = 1 << (low & 15);
      if ((units[at + (low >>> 4)] & bit) !== 0) return false;
      units[at + (low >>> 4)] |= bit;
      this.#counts[high] = count + 1;
      this.#heat(high, units, at, count + 1, BITMAP);
      return true;
    }
    let insertAt = count;
    if (count > 0 && units[at + count - 1] >= low) {
      const found = lowIndex(units, at, count, low);
      if (found >= 0) return false;
      insertAt = -found - 1;
    }
    if (count === ARRAY_MAX) {
      this.#addresses[high] = bitmapOf(arena, address, count);
      arena.release(address, this.#sizes[high]);
      this.#sizes[high] = BITMAP;
      return this.#addToContainer(ordinal);
    }
    const size = this.#sizes[high];
    if (count === BLOCK_SIZES[size]) {
      this.#addresses[high] = address = grownBlock(arena, address, size, count);
      this.#sizes[high] = arena.granted;
      [units, at] = [arena.slabs[address >>> 16], address & 0xffff];
    }
    if (insertAt < count) units.copyWithin(at + insertAt + 1, at + insertAt, at + count);
    units[at + insertAt] = low;
    this.#counts[high] = count + 1;
    if (insertAt === count) this.#heat(high, units, at, count + 1, BLOCK_SIZES[this.#sizes[high]]);
    return true;
  }
}

const EMPTY = new Uint16Array(0);
