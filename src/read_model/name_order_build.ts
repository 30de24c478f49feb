import { SlicedSort } from "./sliced_sort.ts";
import { compareIds } from "./text_table.ts";

/**
 * The name order of a million customers built at once, in slices: the texts and name prefixes as
 * they are when it starts, sorted by a merge sort; texts never change, so the sort's comparisons
 * stay true while customers change under it (those are put in afterwards).
 */
export class NameOrderBuild {
  readonly #ordinals: Int32Array;
  readonly #sort: SlicedSort;

  constructor(
    ordinals: Int32Array,
    textAt: (ordinal: number) => string,
    prefixOf: (ordinal: number) => number,
    compareNames: (a: string, b: string) => number,
  ) {
    this.#ordinals = ordinals;
    const texts = Array.from(ordinals, textAt);
    const prefixes = Float64Array.from(ordinals, prefixOf);
    const places = Int32Array.from(ordinals, (_, i) => i);
    this.#sort = new SlicedSort(places, (a, b) => {
      const difference = prefixes[a] - prefixes[b];
      if (difference !== 0) return difference;
      return compareNames(texts[a], texts[b]) || compareIds(texts[a], texts[b]);
    });
  }

  /** Sorts on until `now()` passes `until`; true once done. */
  step(now: () => number, until: number): boolean {
    return this.#sort.step(now, until);
  }

  /** The ordinals in name order, once done. */
  sorted(): Int32Array {
    return this.#sort.sorted.map((place) => this.#ordinals[place]);
  }
}
