import { keyOf, type ListKey, type ListSort } from "./list_sort.ts";

/** A match kept for the page: its text and its place in the sort. */
interface Kept {
  text: string;
  place: ListKey;
}

/**
 * The first `count` matches in a sort, from matches offered in any order: a heap whose root is
 * the last of those kept, so a match past it costs one comparison.
 */
export class BestMatches {
  readonly #sort: ListSort;
  readonly #count: number;
  #heap: Kept[] = [];

  constructor(sort: ListSort, count: number) {
    this.#sort = sort;
    this.#count = count;
  }

  offer(text: string): void {
    const kept = { text, place: keyOf(this.#sort, text) };
    const heap = this.#heap;
    if (heap.length < this.#count) {
      heap.push(kept);
      this.#up(heap.length - 1);
    } else if (this.#before(kept, heap[0])) {
      heap[0] = kept;
      this.#down(0);
    }
  }

  /** The texts kept, in the sort's order. */
  texts(): string[] {
    return [...this.#heap].sort((a, b) => (this.#before(a, b) ? -1 : 1)).map((kept) => kept.text);
  }

  /** True when `a` comes before `b` in the sort (its direction included). */
  #before(a: Kept, b: Kept): boolean {
    const difference = compareKeys(a.place, b.place);
    return this.#sort.descending ? difference > 0 : difference < 0;
  }

  #up(at: number): void {
    const heap = this.#heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#before(heap[parent], heap[at])) return;
      [heap[parent], heap[at]] = [heap[at], heap[parent]];
      at = parent;
    }
  }

  #down(at: number): void {
    const heap = this.#heap;
    for (;;) {
      let last = at;
      for (const child of [2 * at + 1, 2 * at + 2]) {
        if (child < heap.length && this.#before(heap[last], heap[child])) last = child;
      }
      if (last === at) return;
      [heap[last], heap[at]] = [heap[at], heap[last]];
      at = last;
    }
  }
}

/** Compares two places in a sort, ascending: key first, then id. */
export function compareKeys(a: ListKey, b: ListKey): number {
  if (a.key !== b.key && a.key !== undefined && b.key !== undefined) return a.key < b.key ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
