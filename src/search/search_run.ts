import type { CustomerProjection } from "../read_model/projection.ts";
import type { OrderPosition } from "../read_model/order_index.ts";
import { ASK_TEXT, type IndexPlan, NO, planQuery } from "./index_plan.ts";
import {
  compareTexts,
  compareWithKey,
  keyOf,
  type ListKey,
  type ListSort,
  orderOf,
} from "./list_sort.ts";
import type { QueryNode } from "./query.ts";
import { textMatches } from "./text_match.ts";

/** A page a list asks for: a filter (none: every customer), an order, a cursor and a size. */
export interface SearchRequest {
  query?: QueryNode;
  sort: ListSort;
  after?: ListKey;
  limit: number;
}

/** A page of customers' texts, and whether more match after it. */
export interface SearchPage {
  texts: string[];
  more: boolean;
}

/** How long a walk runs before it lets other work in, and how it does. */
export interface Slicing {
  sliceMs: number;
  now: () => number;
  nextTurn: () => Promise<void>;
}

/** Candidates up to this many are checked and sorted at once, with no walk. */
const COLLECT_MAX = 4096;

/**
 * Answers a page as the read model stood when the call began: from the plan's candidates when
 * few, else by walking the sort's order, in slices; changes made between slices are journaled so
 * the answer is still the starting state's. The search indexes must be built.
 */
export async function search(
  projection: CustomerProjection,
  request: SearchRequest,
  slicing: Slicing,
): Promise<SearchPage> {
  const plan = request.query === undefined ? undefined : planQuery(request.query, projection);
  const candidates = plan?.candidates;
  if (candidates !== undefined && candidates.size <= COLLECT_MAX) {
    return collected(projection, request, plan!);
  }
  return await new Walk(projection, request, plan, slicing).run();
}

/** The page from few candidates: each checked, then the matches sorted. */
function collected(projection: CustomerProjection, request: SearchRequest, plan: IndexPlan) {
  const { sort, after } = request;
  const sign = sort.descending ? -1 : 1;
  const matches: number[] = [];
  plan.candidates!.forEach((ordinal) => {
    const text = projection.textAt(ordinal);
    if (text === undefined) return;
    if (after !== undefined && sign * compareWithKey(sort, projection, ordinal, after) <= 0) return;
    if (accepts(plan, request.query!, ordinal, text)) matches.push(ordinal);
  });
  const order = orderOf(sort, projection);
  matches.sort((a, b) => sign * order.compare(a, b));
  const texts = matches.slice(0, request.limit).map((ordinal) => projection.textAt(ordinal)!);
  return { texts, more: matches.length > request.limit };
}

function accepts(plan: IndexPlan, query: QueryNode, ordinal: number, text: string): boolean {
  const verdict = plan.test(ordinal);
  return verdict !== NO && (verdict !== ASK_TEXT || textMatches(query, text));
}

/** A change seen while the walk paused: what the ordinal held, and whether the walk had passed it. */
interface Journaled {
  before: string | undefined;
  passed: boolean;
}

class Walk {
  readonly #texts: string[] = [];
  #journal: Map<number, Journaled> | undefined;
  #pausedAt: string | undefined;

  constructor(
    readonly projection: CustomerProjection,
    readonly request: SearchRequest,
    readonly plan: IndexPlan | undefined,
    readonly slicing: Slicing,
  ) {}

  async run(): Promise<SearchPage> {
    const { request, projection, slicing } = this;
    let unwatch: (() => void) | undefined;
    try {
      for (let from = request.after;;) {
        const paused = this.#slice(from);
        if (!paused) break;
        from = keyOf(request.sort, this.#pausedAt!);
        unwatch ??= projection.watch((ordinal, before) => this.#note(ordinal, before));
        await slicing.nextTurn();
      }
    } finally {
      unwatch?.();
    }
    const texts = this.#texts;
    if (this.#journal !== undefined) {
      for (const { before, passed } of this.#journal.values()) {
        if (before !== undefined && !passed && this.#wanted(before)) texts.push(before);
      }
      texts.sort((a, b) => compareTexts(request.sort, a, b));
    }
    return { texts: texts.slice(0, request.limit), more: texts.length > request.limit };
  }

  /** Walks from after `from` until the page is full or the slice is over; true if paused. */
  #slice(from: ListKey | undefined): boolean {
    const { projection, request, plan, slicing } = this;
    const { sort } = request;
    const order = orderOf(sort, projection);
    const candidates = plan?.candidates;
    const want = request.limit + 1;
    const until = slicing.now() + slicing.sliceMs;
    let paused = false;
    const position: OrderPosition = from === undefined
      ? (sort.descending ? order.seek(() => true) : { chunk: 0, at: 0 })
      : order.seek((ordinal) => {
        const difference = compareWithKey(sort, projection, ordinal, from);
        return sort.descending ? difference < 0 : difference <= 0;
      });
    let visits = 0;
    order.walk(position, sort.descending, (ordinal) => {
      const text = projection.textAt(ordinal)!;
      if (
        (candidates === undefined || candidates.has(ordinal)) && !this.#journal?.has(ordinal) &&
        (plan === undefined || accepts(plan, request.query!, ordinal, text))
      ) {
        if (this.#texts.push(text) === want) return false;
      }
      if ((++visits & 255) === 0 && slicing.now() >= until) {
        this.#pausedAt = text;
        paused = true;
        return false;
      }
      return true;
    });
    return paused;
  }

  /** Keeps the first state each ordinal changed from, and whether the walk had passed it. */
  #note(ordinal: number, before: string | undefined): void {
    const journal = this.#journal ??= new Map();
    if (journal.has(ordinal)) return;
    const passed = before !== undefined &&
      compareTexts(this.request.sort, before, this.#pausedAt!) <= 0;
    journal.set(ordinal, { before, passed });
  }

  /** Whether a text the walk did not see belongs in the page (after the cursor, matching). */
  #wanted(text: string): boolean {
    const { request } = this;
    if (request.query !== undefined && !textMatches(request.query, text)) return false;
    if (request.after === undefined) return true;
    const sign = request.sort.descending ? -1 : 1;
    const key = keyOf(request.sort, text);
    return sign * compareKeys(key, request.after) > 0;
  }
}

function compareKeys(a: ListKey, b: ListKey): number {
  if (a.key !== b.key && a.key !== undefined && b.key !== undefined) return a.key < b.key ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
