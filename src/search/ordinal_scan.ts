import type { CustomerProjection } from "../read_model/projection.ts";
import { BestMatches, compareKeys } from "./best_matches.ts";
import { ASK_TEXT, type IndexPlan, NO } from "./index_plan.ts";
import { keyOf, type ListKey, type ListSort } from "./list_sort.ts";
import type { QueryNode } from "./query.ts";
import type { SearchPage, Slicing } from "./search_page.ts";
import { type TextTest, textTest } from "./text_match.ts";

/** A change seen while the scan paused: what the ordinal held, and whether the scan had passed it. */
interface Journaled {
  before: string | undefined;
  passed: boolean;
}

/** How a scan reads a customer's place in the sort, to compare it with the cursor. */
export type CursorTest = (ordinal: number, text: string) => boolean;

/**
 * Every customer (or every candidate) in ordinal order, the order their texts lie in memory,
 * keeping the page's first matches in the sort; in slices, between which changes are journaled
 * so the page is still the state the scan started from.
 */
export class OrdinalScan {
  readonly #best: BestMatches;
  readonly #end: number;
  /** The candidates as bits over the ordinals (undefined: every customer). */
  readonly #bits: Uint32Array | undefined;
  readonly #matches: TextTest | undefined;
  #journal: Map<number, Journaled> | undefined;
  #next = 0;

  constructor(
    readonly projection: CustomerProjection,
    query: QueryNode | undefined,
    readonly plan: IndexPlan | undefined,
    readonly sort: ListSort,
    readonly after: ListKey | undefined,
    readonly afterCursor: CursorTest,
    readonly limit: number,
  ) {
    this.#best = new BestMatches(sort, limit + 1);
    this.#end = projection.ordinalLimit;
    this.#matches = query === undefined ? undefined : textTest(query);
    const candidates = plan?.candidates;
    this.#bits = candidates?.bits;
    if (candidates !== undefined && this.#bits === undefined) {
      const bits = this.#bits = new Uint32Array((this.#end + 31) >>> 5);
      candidates.forEach((ordinal) => bits[ordinal >>> 5] |= 1 << (ordinal & 31));
    }
  }

  async run(slicing: Slicing): Promise<SearchPage> {
    // A scan follows a walk's slice, so it lets other work in before its own first one.
    const unwatch = this.projection.watch((ordinal, before) => this.#note(ordinal, before));
    try {
      do await slicing.nextTurn(); while (this.#slice(slicing));
    } finally {
      unwatch();
    }
    for (const { before, passed } of this.#journal?.values() ?? []) {
      if (before !== undefined && !passed && this.#wanted(before)) this.#best.offer(before);
    }
    const texts = this.#best.texts();
    return { texts: texts.slice(0, this.limit), more: texts.length > this.limit };
  }

  /** Scans on until the end or the slice is over; true if paused. */
  #slice(slicing: Slicing): boolean {
    const { projection, plan } = this;
    const [bits, matches] = [this.#bits, this.#matches];
    const until = slicing.now() + slicing.sliceMs;
    for (let ordinal = this.#next; ordinal < this.#end; ordinal++) {
      if ((ordinal & 1023) === 0 && ordinal > this.#next && slicing.now() >= until) {
        this.#next = ordinal;
        return true;
      }
      if (bits !== undefined) {
        const word = bits[ordinal >>> 5];
        if (word === 0) {
          ordinal |= 31;
          continue;
        }
        if ((word & (1 << (ordinal & 31))) === 0) continue;
      }
      if (this.#journal?.has(ordinal)) continue;
      const text = projection.textAt(ordinal);
      if (text === undefined) continue;
      const verdict = plan === undefined ? NO + 1 : plan.test(ordinal);
      if (verdict === NO || !this.afterCursor(ordinal, text)) continue;
      if (verdict === ASK_TEXT && !matches!(text)) continue;
      this.#best.offer(text);
    }
    this.#next = this.#end;
    return false;
  }

  /** Keeps the first state each ordinal changed from, and whether the scan had passed it. */
  #note(ordinal: number, before: string | undefined): void {
    const journal = this.#journal ??= new Map();
    if (!journal.has(ordinal)) journal.set(ordinal, { before, passed: ordinal < this.#next });
  }

  /** Whether a state the scan did not see belongs in the page (after the cursor, matching). */
  #wanted(text: string): boolean {
    if (this.#matches !== undefined && !this.#matches(text)) return false;
    if (this.after === undefined) return true;
    const sign = this.sort.descending ? -1 : 1;
    return sign * compareKeys(keyOf(this.sort, text), this.after) > 0;
  }
}
