import { BITMAP_UNITS, BLOCK_SIZES, type BlockArena, sizeFor } from "./block_arena.ts";

/** A bitmap block holding the `count` sorted low bits of the array block at `address`. */
export function bitmapOf(arena: BlockArena, address: number, count: number): number {
  const bitmap = arena.allocate(BLOCK_SIZES.length - 1);
  const [from, to] = [arena.slabs[address >>> 16], arena.slabs[bitmap >>> 16]];
  const [at, base] = [address & 0xffff, bitmap & 0xffff];
  for (let i = at; i < at + count; i++) to[base + (from[i] >>> 4)] |= 1 << (from[i] & 15);
  return bitmap;
}

/** An array block holding the `count` members of the bitmap block at `bitmap` (size: granted). */
export function arrayOf(arena: BlockArena, bitmap: number, count: number): number {
  const address = arena.allocate(sizeFor(count));
  const [from, to] = [arena.slabs[bitmap >>> 16], arena.slabs[address >>> 16]];
  const [at, base] = [bitmap & 0xffff, address & 0xffff];
  let i = base;
  for (let word = 0; word < BITMAP_UNITS; word++) {
    for (let bits = from[at + word]; bits !== 0; bits &= bits - 1) {
      to[i++] = (word << 4) | (31 - Math.clz32(bits & -bits));
    }
  }
  return address;
}

/** A block of the next size up holding the `count` units of the one at `address`, now freed. */
export function grownBlock(
  arena: BlockArena,
  address: number,
  size: number,
  count: number,
): number {
  const grown = arena.allocate(size + 1);
  const units = arena.slabs[address >>> 16];
  arena.slabs[grown >>> 16].set(
    units.subarray(address & 0xffff, (address & 0xffff) + count),
    grown & 0xffff,
  );
  arena.release(address, size);
  return grown;
}

/** True when one container holds `low`. */
export function holdsLow(
  arena: BlockArena,
  address: number,
  count: number,
  bitmap: boolean,
  low: number,
): boolean {
  const units = arena.slabs[address >>> 16];
  const at = address & 0xffff;
  if (bitmap) return (units[at + (low >>> 4)] & (1 << (low & 15))) !== 0;
  return lowIndex(units, at, count, low) >= 0;
}

/** Removes `low` from one container (its count is the caller's); false when not a member. */
export function removeLow(
  arena: BlockArena,
  address: number,
  count: number,
  bitmap: boolean,
  low: number,
): boolean {
  const units = arena.slabs[address >>> 16];
  const at = address & 0xffff;
  if (bitmap) {
    const bit = 1 << (low & 15);
    if ((units[at + (low >>> 4)] & bit) === 0) return false;
    units[at + (low >>> 4)] &= ~bit;
    return true;
  }
  const found = lowIndex(units, at, count, low);
  if (found < 0) return false;
  units.copyWithin(at + found, at + found + 1, at + count);
  return true;
}

/** Visits the members of one container (its high bits `base`), ascending. */
export function forEachIn(
  arena: BlockArena,
  address: number,
  count: number,
  bitmap: boolean,
  base: number,
  visit: (ordinal: number) => void,
): void {
  const units = arena.slabs[address >>> 16];
  const at = address & 0xffff;
  if (!bitmap) {
    for (let i = at; i < at + count; i++) visit(base | units[i]);
    return;
  }
  for (let word = 0; word < BITMAP_UNITS; word++) {
    for (let bits = units[at + word]; bits !== 0; bits &= bits - 1) {
      visit(base | (word << 4) | (31 - Math.clz32(bits & -bits)));
    }
  }
}

/** Sets the bits of one container's members (high bits `high`) in `words`. */
export function orBlockInto(
  arena: BlockArena,
  address: number,
  count: number,
  bitmap: boolean,
  high: number,
  words: Uint32Array,
): void {
  const units = arena.slabs[address >>> 16];
  const at = address & 0xffff;
  if (bitmap) {
    const base = high << 11;
    for (let word = 0; word < BITMAP_UNITS; word += 2) {
      words[base + (word >>> 1)] |= units[at + word] | (units[at + word + 1] << 16);
    }
    return;
  }
  for (let i = at; i < at + count; i++) {
    const ordinal = (high << 16) | units[i];
    words[ordinal >>> 5] |= 1 << (ordinal & 31);
  }
}

/** A posting set's size-class mark of a bitmap container. */
export const BITMAP_SIZE = -1;
/** An array container's members as bits, for andBlockInto; left zeroed after each use. */
const MASK = new Uint32Array(2048);

/**
 * Clears in `words` each bit not of a member of a posting set's containers (per high 16 bits:
 * block address or -1, members, size class or BITMAP_SIZE).
 */
export function andContainersInto(
  arena: BlockArena,
  addresses: number[],
  counts: number[],
  sizes: number[],
  words: Uint32Array,
): void {
  for (let high = 0; high << 11 < words.length; high++) {
    const address = addresses[high] ?? -1;
    if (address === -1) words.fill(0, high << 11, (high + 1) << 11);
    else andBlockInto(arena, address, counts[high], sizes[high] === BITMAP_SIZE, high, words);
  }
}

/** Keeps in `words` only the bits of one container's members (high bits `high`) there. */
function andBlockInto(
  arena: BlockArena,
  address: number,
  count: number,
  bitmap: boolean,
  high: number,
  words: Uint32Array,
): void {
  const units = arena.slabs[address >>> 16];
  const at = address & 0xffff;
  const base = high << 11;
  const mask = MASK;
  const end = Math.min(words.length - base, mask.length);
  if (bitmap) {
    for (let word = 0; word < end; word++) {
      words[base + word] &= units[at + 2 * word] | (units[at + 2 * word + 1] << 16);
    }
    return;
  }
  for (let i = at; i < at + count; i++) mask[units[i] >>> 5] |= 1 << (units[i] & 31);
  for (let word = 0; word < end; word++) words[base + word] &= mask[word];
  for (let i = at; i < at + count; i++) mask[units[i] >>> 5] = 0;
}

/** The index of `value` in sorted `values`, else -(insertion point) - 1. */
export function sortedIndex(values: number[], value: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = values[middle];
    if (found < value) low = middle + 1;
    else if (found > value) high = middle - 1;
    else return middle;
  }
  return -low - 1;
}

/** The index of `value` among `units[at, at + count)`, sorted, else -(insertion point) - 1. */
export function lowIndex(units: Uint16Array, at: number, count: number, value: number): number {
  let low = 0;
  let high = count - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = units[at + middle];
    if (found < value) low = middle + 1;
    else if (found > value) high = middle - 1;
    else return middle;
  }
  return -low - 1;
}
