import { emailKey } from "../domain/customer.ts";
import { fieldNumber } from "../read_model/customer_fields.ts";
import type { PostingSet } from "../read_model/posting_set.ts";
import type { CustomerProjection } from "../read_model/projection.ts";
import { TRIGRAM, trigramsOf } from "../read_model/trigrams.ts";
import { OrdinalSet } from "./ordinal_set.ts";
import type { MatchClause, QueryNode, TimeClause } from "./query.ts";

/** What the indexes say of an ordinal: it does not match, it does, or its text must tell. */
export const NO = 0, YES = 1, ASK_TEXT = 2;
export type Verdict = typeof NO | typeof YES | typeof ASK_TEXT;

/** A query as the indexes answer it, when the search starts. */
export interface IndexPlan {
  /** A superset of the matching customers; undefined when the indexes cannot narrow them. */
  candidates: OrdinalSet | undefined;
  test(ordinal: number): Verdict;
}

/** A time range gives candidates when it holds at most this many customers. */
const TIME_CANDIDATES_MAX = 65_536;

/** Plans a query on the projection's indexes (which must be built). */
export function planQuery(node: QueryNode, projection: CustomerProjection): IndexPlan {
  const limit = projection.ordinalLimit;
  switch (node.kind) {
    case "and": {
      const plans = node.nodes.map((child) => planQuery(child, projection));
      const narrowing = plans.flatMap((plan) => plan.candidates ?? []).sort((a, b) =>
        a.size - b.size
      );
      return {
        candidates: narrowing.length === 0 ? undefined : narrowing.reduce((a, b) => a.and(b)),
        test: (ordinal) => {
          let verdict: Verdict = YES;
          for (const plan of plans) {
            const one = plan.test(ordinal);
            if (one === NO) return NO;
            if (one === ASK_TEXT) verdict = ASK_TEXT;
          }
          return verdict;
        },
      };
    }
    case "or": {
      const plans = node.nodes.map((child) => planQuery(child, projection));
      const all = plans.every((plan) => plan.candidates !== undefined);
      return {
        candidates: all
          ? plans.map((plan) => plan.candidates!).reduce((a, b) => a.or(b, limit))
          : undefined,
        test: (ordinal) => {
          let verdict: Verdict = NO;
          for (const plan of plans) {
            const one = plan.test(ordinal);
            if (one === YES) return YES;
            if (one === ASK_TEXT) verdict = ASK_TEXT;
          }
          return verdict;
        },
      };
    }
    case "not": {
      const inner = planQuery(node.node, projection);
      return {
        candidates: undefined,
        test: (ordinal) => {
          const verdict = inner.test(ordinal);
          return verdict === ASK_TEXT ? ASK_TEXT : verdict === YES ? NO : YES;
        },
      };
    }
    case "time":
      return timePlan(node, projection);
  }
  return matchPlan(node, projection);
}

/** A plan whose candidates are a set, exactly the matches or a superset of them. */
function setPlan(candidates: OrdinalSet, exact: boolean): IndexPlan {
  const hit = exact ? YES : ASK_TEXT;
  return { candidates, test: (ordinal) => (candidates.has(ordinal) ? hit : NO) };
}

function matchPlan(clause: MatchClause, projection: CustomerProjection): IndexPlan {
  const limit = projection.ordinalLimit;
  const { field, op, value } = clause;
  const index = projection.search;
  if (field.kind === "id") {
    const ordinal = value === null ? -1 : projection.ordinalOf(value.toUpperCase());
    return setPlan(ordinal === -1 ? OrdinalSet.empty() : OrdinalSet.of(ordinal, limit), true);
  }
  if (field.kind === "metadata") {
    if (value !== null) {
      return setPlan(OrdinalSet.of(index.metadata.withValue(field.key, value), limit), false);
    }
    const withKey = OrdinalSet.of(index.metadata.withKey(field.key), limit);
    return { candidates: undefined, test: (ordinal) => (withKey.has(ordinal) ? NO : YES) };
  }
  const postings = index.fields[fieldNumber(field.name)];
  if (value === null) return setPlan(OrdinalSet.of(postings.missing, limit), true);
  if (op === ":" && field.name === "email") {
    const owner = projection.emailOwner(emailKey(value));
    const ordinal = owner === undefined ? -1 : projection.ordinalOf(owner);
    return setPlan(ordinal === -1 ? OrdinalSet.empty() : OrdinalSet.of(ordinal, limit), true);
  }
  if (value.length < TRIGRAM) {
    if (op === ":") return setPlan(OrdinalSet.of(postings.short(value), limit), true);
    return { candidates: undefined, test: () => ASK_TEXT };
  }
  const sets: PostingSet[] = [];
  for (const key of trigramsOf(value)) {
    const set = postings.trigram(key);
    if (set === undefined) return setPlan(OrdinalSet.empty(), true);
    sets.push(set);
  }
  return setPlan(intersection(sets, limit), op === "~" && value.length === TRIGRAM);
}

/** The customers in every set: the smallest copied, then filtered by the others, smallest first. */
function intersection(sets: PostingSet[], limit: number): OrdinalSet {
  sets.sort((a, b) => a.size - b.size);
  let result = OrdinalSet.of(sets[0], limit);
  const bits = result.bits;
  if (bits !== undefined) {
    // The copy of the smallest is this search's own: the others clear bits in it in place.
    for (let i = 1; i < sets.length; i++) sets[i].andInto(bits);
    return OrdinalSet.ofBits(bits);
  }
  for (let i = 1; i < sets.length && result.size > 0; i++) result = filtered(result, sets[i]);
  return result;
}

function filtered(set: OrdinalSet, by: PostingSet): OrdinalSet {
  const kept: number[] = [];
  set.forEach((ordinal) => by.has(ordinal) && kept.push(ordinal));
  return OrdinalSet.fromSorted(Int32Array.from(kept));
}

function timePlan(clause: TimeClause, projection: CustomerProjection): IndexPlan {
  const orders = projection.search.orders;
  const order = orders.of(clause.name);
  const test = (ordinal: number): Verdict => {
    const at = orders.time(clause.name, ordinal);
    return at >= clause.from && at < clause.to ? YES : NO;
  };
  const start = order.seek((ordinal) => orders.time(clause.name, ordinal) < clause.from);
  const end = order.seek((ordinal) => orders.time(clause.name, ordinal) < clause.to);
  if (order.rank(end) - order.rank(start) > TIME_CANDIDATES_MAX) {
    return { candidates: undefined, test };
  }
  const inRange: number[] = [];
  order.walk(start, false, (ordinal) => test(ordinal) === YES && inRange.push(ordinal) > 0);
  const candidates = OrdinalSet.fromSorted(Int32Array.from(inRange).sort());
  return { candidates, test };
}
