/** Block sizes in 16-bit units, growing by about half; the last is a 65,536-bit bitmap. */
export const BLOCK_SIZES = [
  4,
  8,
  12,
  16,
  24,
  32,
  48,
  64,
  96,
  128,
  192,
  256,
  384,
  512,
  768,
  1024,
  1536,
  2048,
  3072,
  4096,
] as const;

/** The units of the largest block. */
export const BITMAP_UNITS = 4096;
const SLAB_UNITS = 1 << 16;

/**
 * 16-bit blocks carved out of slabs of 65,536 units, each slab holding blocks of one size, and
 * reused by size once freed: many small growing arrays without a heap allocation each, so memory
 * is not lost to fragmentation. An address is slab * 65,536 + offset.
 */
export class BlockArena {
  readonly slabs: Uint16Array[] = [];
  #free: number[][] = BLOCK_SIZES.map(() => []);
  /** Per size, the address of the next unused block of its current slab (-1: none). */
  #next: number[] = BLOCK_SIZES.map(() => -1);

  /** The size class of the block allocate last gave: the one asked for, or a larger free one. */
  granted = 0;

  /** A zeroed block of size class `size` (an index of BLOCK_SIZES) or, freed already, larger. */
  allocate(size: number): number {
    for (let larger = size; larger < BLOCK_SIZES.length && larger <= size + 2; larger++) {
      const reused = this.#free[larger].pop();
      if (reused === undefined) continue;
      this.slabs[reused >>> 16].fill(0, reused & 0xffff, (reused & 0xffff) + BLOCK_SIZES[larger]);
      this.granted = larger;
      return reused;
    }
    const units = BLOCK_SIZES[size];
    this.granted = size;
    let address = this.#next[size];
    if (address === -1 || (address & 0xffff) + units > SLAB_UNITS) {
      address = this.slabs.length * SLAB_UNITS;
      this.slabs.push(new Uint16Array(SLAB_UNITS));
    }
    const end = (address & 0xffff) + units;
    this.#next[size] = end + units > SLAB_UNITS ? -1 : address + units;
    return address;
  }

  release(address: number, size: number): void {
    this.#free[size].push(address);
  }

  /** The bytes the slabs hold. */
  get bytes(): number {
    return this.slabs.length * SLAB_UNITS * 2;
  }
}

/** The smallest size class holding `units`. */
export function sizeFor(units: number): number {
  let size = 0;
  while (BLOCK_SIZES[size] < units) size++;
  return size;
}
