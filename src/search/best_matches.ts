import { FirstKept } from "./first_kept.ts";
import { keyOf, type ListKey, type ListSort } from "./list_sort.ts";

/** A match kept for the page: its text and its place in the sort. */
interface Kept {
  text: string;
  place: ListKey;
}

/** The first `count` matches in a sort, from matches offered in any order. */
export class BestMatches {
  readonly #sort: ListSort;
  readonly #kept: FirstKept<Kept>;

  constructor(sort: ListSort, count: number) {
    this.#sort = sort;
    this.#kept = new FirstKept(count, (a, b) => {
      const difference = compareKeys(a.place, b.place);
      return sort.descending ? difference > 0 : difference < 0;
    });
  }

  offer(text: string): void {
    this.#kept.offer({ text, place: keyOf(this.#sort, text) });
  }

  /** The texts kept, in the sort's order. */
  texts(): string[] {
    return this.#kept.sorted().map((kept) => kept.text);
  }
}

/** Compares two places in a sort, ascending: key first, then id. */
export function compareKeys(a: ListKey, b: ListKey): number {
  if (a.key !== b.key && a.key !== undefined && b.key !== undefined) return a.key < b.key ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
