import type { OrderIndex } from "../read_model/order_index.ts";
import { FirstKept } from "./first_kept.ts";

/**
 * The first `count` ordinals of an order. The order's rough key never disagrees with its compare,
 * so once full an ordinal whose rough key is past the last kept one's is turned away untested.
 */
export class BestOrdinals {
  readonly #kept: FirstKept<number>;
  readonly #sign: number;
  #rootRough = 0;

  constructor(readonly order: OrderIndex, descending: boolean, count: number) {
    const sign = this.#sign = descending ? -1 : 1;
    this.#kept = new FirstKept(count, (a, b) => sign * order.compare(a, b) < 0);
  }

  /** False when the ordinal surely comes after every one kept, so testing it is no use. */
  mayTake(ordinal: number): boolean {
    return !this.#kept.full || this.#sign * (this.order.rough(ordinal) - this.#rootRough) <= 0;
  }

  offer(ordinal: number): void {
    if (this.#kept.offer(ordinal)) this.#rootRough = this.order.rough(this.#kept.root!);
  }

  /** The ordinals kept, in the order (its direction included). */
  sorted(): number[] {
    return this.#kept.sorted();
  }
}
