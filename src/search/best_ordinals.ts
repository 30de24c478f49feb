import type { OrderIndex } from "../read_model/order_index.ts";

/**
 * The first `count` ordinals of an order, from ordinals offered in any order: a heap whose root
 * is the last of those kept. The order's rough key never disagrees with its compare, so once the
 * heap is full an ordinal whose rough key is past the root's is turned away before it is tested.
 */
export class BestOrdinals {
  readonly #heap: number[] = [];
  readonly #sign: number;
  #rootRough = 0;

  constructor(readonly order: OrderIndex, descending: boolean, readonly count: number) {
    this.#sign = descending ? -1 : 1;
  }

  /** False when the ordinal surely comes after every one kept, so testing it is no use. */
  mayTake(ordinal: number): boolean {
    return this.#heap.length < this.count ||
      this.#sign * (this.order.rough(ordinal) - this.#rootRough) <= 0;
  }

  offer(ordinal: number): void {
    const heap = this.#heap;
    if (heap.length < this.count) {
      heap.push(ordinal);
      this.#up(heap.length - 1);
    } else if (this.#before(ordinal, heap[0])) {
      heap[0] = ordinal;
      this.#down(0);
    } else return;
    this.#rootRough = this.order.rough(heap[0]);
  }

  /** The ordinals kept, in the order (its direction included). */
  sorted(): number[] {
    return [...this.#heap].sort((a, b) => this.#sign * this.order.compare(a, b));
  }

  #before(a: number, b: number): boolean {
    return this.#sign * this.order.compare(a, b) < 0;
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
      const [left, right] = [2 * at + 1, 2 * at + 2];
      if (left < heap.length && this.#before(heap[last], heap[left])) last = left;
      if (right < heap.length && this.#before(heap[last], heap[right])) last = right;
      if (last === at) return;
      [heap[last], heap[at]] = [heap[at], heap[last]];
      at = last;
    }
  }
}
