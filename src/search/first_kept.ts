/**
 * The first `count` items of an order, from items offered in any order: a heap whose root is the
 * last of those kept, so an item past it costs one comparison.
 */
export class FirstKept<T> {
  readonly #heap: T[] = [];

  /** `before(a, b)`: a comes before b in the order. */
  constructor(readonly count: number, readonly before: (a: T, b: T) => boolean) {}

  get full(): boolean {
    return this.#heap.length >= this.count;
  }

  /** The last item kept (undefined while none is). */
  get root(): T | undefined {
    return this.#heap[0];
  }

  /** Keeps the item if it is among the first; true when it is. */
  offer(item: T): boolean {
    const heap = this.#heap;
    if (heap.length < this.count) {
      heap.push(item);
      this.#up(heap.length - 1);
    } else if (this.before(item, heap[0])) {
      heap[0] = item;
      this.#down(0);
    } else return false;
    return true;
  }

  /** The items kept, in the order. */
  sorted(): T[] {
    return [...this.#heap].sort((a, b) => (this.before(a, b) ? -1 : 1));
  }

  #up(at: number): void {
    const heap = this.#heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(heap[parent], heap[at])) return;
      [heap[parent], heap[at]] = [heap[at], heap[parent]];
      at = parent;
    }
  }

  #down(at: number): void {
    const heap = this.#heap;
    for (;;) {
      let last = at;
      const [left, right] = [2 * at + 1, 2 * at + 2];
      if (left < heap.length && this.before(heap[last], heap[left])) last = left;
      if (right < heap.length && this.before(heap[last], heap[right])) last = right;
      if (last === at) return;
      [heap[last], heap[at]] = [heap[at], heap[last]];
      at = last;
    }
  }
}
