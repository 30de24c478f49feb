import type { CustomerProjection } from "../read_model/projection.ts";
import type { OrderPosition } from "../read_model/order_index.ts";
import { BestOrdinals } from "./best_ordinals.ts";
import { ASK_TEXT, type IndexPlan, NO, planQuery } from "./index_plan.ts";
import { compareWithKey, type ListKey, type ListSort, orderOf } from "./list_sort.ts";
import { OrdinalScan } from "./ordinal_scan.ts";
import type { SearchPage, Slicing } from "./search_page.ts";
import type { QueryNode } from "./query.ts";
import { type TextTest, textTest } from "./text_match.ts";
import type { TraceSpan } from "../lib/trace_span.ts";

/** A page a list asks for: a filter (none: every customer), an order, a cursor and a size. */
export interface SearchRequest {
  query?: QueryNode;
  sort: ListSort;
  after?: ListKey;
  limit: number;
}

/** Candidates up to this many are checked and sorted at once. */
const COLLECT_MAX = 20_000;
/** A walk in the sort's order that has not filled the page after this many gives way to a scan. */
const PROBE_VISITS = 16_384;

/**
 * Answers a page as the read model stood when the call began: from the plan's candidates when
 * they are few; else by walking the sort's order while matches come often; else by a scan in
 * slices (ordinal_scan.ts). The search indexes must be built. `span` (tracing on) is told
 * which way it went and how many candidates the indexes left.
 */
export async function search(
  projection: CustomerProjection,
  request: SearchRequest,
  slicing: Slicing,
  span?: TraceSpan,
): Promise<SearchPage> {
  const plan = request.query === undefined ? undefined : planQuery(request.query, projection);
  const candidates = plan?.candidates;
  if (candidates !== undefined) span?.set("search.candidates", candidates.size);
  if (candidates !== undefined && candidates.size <= (slicing.collectMax ?? COLLECT_MAX)) {
    span?.set("search.plan", "candidates");
    return collected(projection, request, plan!);
  }
  const until = slicing.now() + slicing.sliceMs;
  const walked = walk(
    projection,
    request,
    plan,
    slicing.probeVisits ?? PROBE_VISITS,
    () => slicing.now() >= until,
  );
  span?.set("search.plan", walked === undefined ? "scan" : "walk");
  if (walked !== undefined) return walked;
  const { sort, after, query, limit } = request;
  const sign = sort.descending ? -1 : 1;
  const afterCursor = (ordinal: number) =>
    after === undefined || sign * compareWithKey(sort, projection, ordinal, after) > 0;
  return await new OrdinalScan(projection, query, plan, sort, after, afterCursor, limit)
    .run(slicing);
}

/** The page from few candidates: each checked, then the matches sorted. */
function collected(projection: CustomerProjection, request: SearchRequest, plan: IndexPlan) {
  const { sort, after, limit } = request;
  const sign = sort.descending ? -1 : 1;
  const matches = textTest(request.query!);
  const best = new BestOrdinals(orderOf(sort, projection), sort.descending, limit + 1);
  // Ordinals follow creation, so visited in the sort's direction most are turned away unread.
  const ordinals = plan.candidates!.toArray();
  for (let i = 0; i < ordinals.length; i++) {
    const ordinal = ordinals[sort.descending ? ordinals.length - 1 - i : i];
    if (!best.mayTake(ordinal)) continue;
    const text = projection.textAt(ordinal);
    if (text === undefined) continue;
    if (after !== undefined && sign * compareWithKey(sort, projection, ordinal, after) <= 0) {
      continue;
    }
    if (accepts(plan, matches, ordinal, text)) best.offer(ordinal);
  }
  const kept = best.sorted();
  const texts = kept.slice(0, limit).map((ordinal) => projection.textAt(ordinal)!);
  return { texts, more: kept.length > limit };
}

/**
 * The page from the sort's order, from the cursor on, when it fills (or the order ends) within
 * `most` customers and one slice (`late` turns true); undefined when it does not.
 */
function walk(
  projection: CustomerProjection,
  request: SearchRequest,
  plan: IndexPlan | undefined,
  most: number,
  late: () => boolean,
) {
  const { sort, after, limit } = request;
  const order = orderOf(sort, projection);
  const candidates = plan?.candidates;
  const position: OrderPosition = after === undefined
    ? (sort.descending ? order.seek(() => true) : { chunk: 0, at: 0 })
    : order.seek((ordinal) => {
      const difference = compareWithKey(sort, projection, ordinal, after);
      return sort.descending ? difference < 0 : difference <= 0;
    });
  const matches = request.query === undefined ? undefined : textTest(request.query);
  const texts: string[] = [];
  let visits = 0;
  let [full, gaveUp] = [false, false];
  order.walk(position, sort.descending, (ordinal) => {
    if (++visits > most || ((visits & 255) === 0 && late())) return !(gaveUp = true);
    if (candidates !== undefined && !candidates.has(ordinal)) return true;
    const text = projection.textAt(ordinal)!;
    if (plan === undefined || accepts(plan, matches!, ordinal, text)) texts.push(text);
    return !(full = texts.length > limit);
  });
  if (gaveUp) return undefined;
  return { texts: texts.slice(0, limit), more: full };
}

function accepts(plan: IndexPlan, matches: TextTest, ordinal: number, text: string): boolean {
  const verdict = plan.test(ordinal);
  return verdict !== NO && (verdict !== ASK_TEXT || matches(text));
}
