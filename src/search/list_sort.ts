import { readTimes } from "../read_model/customer_fields.ts";
import type { OrderIndex } from "../read_model/order_index.ts";
import type { CustomerProjection } from "../read_model/projection.ts";
import { foldedName, type SortField } from "../read_model/sort_orders.ts";
import { compareIds, compareIdWith, idOf } from "../read_model/text_table.ts";

/** A list's order: a field, either way; ties break by id the same way. */
export interface ListSort {
  field: "id" | SortField;
  descending: boolean;
}

/** The `sort` values a list takes, the default first. */
export const SORTS = [
  "id",
  "-id",
  "created_at",
  "-created_at",
  "updated_at",
  "-updated_at",
  "name",
  "-name",
] as const;

/** The sort a `sort` value names (one of SORTS). */
export function sortOf(value: typeof SORTS[number]): ListSort {
  const descending = value.startsWith("-");
  return { field: (descending ? value.slice(1) : value) as ListSort["field"], descending };
}

/** The name of a sort, as SORTS writes it. */
export const sortName = (sort: ListSort) => `${sort.descending ? "-" : ""}${sort.field}`;

/** Where a page ends: the last customer's id and its sort key (ms, or folded name). */
export interface ListKey {
  id: string;
  key?: number | string;
}

/** The position key of a customer's text in a sort. */
export function keyOf(sort: ListSort, text: string): ListKey {
  const id = idOf(text);
  if (sort.field === "id") return { id };
  if (sort.field === "name") return { id, key: foldedName(text) };
  const [created, updated] = readTimes(text);
  return { id, key: sort.field === "created_at" ? created : updated };
}

/** The order index a sort walks. */
export function orderOf(sort: ListSort, projection: CustomerProjection): OrderIndex {
  return sort.field === "id" ? projection.ids : projection.search.orders.of(sort.field);
}

/** Compares an indexed ordinal with a position key, ascending (the sort's direction aside). */
export function compareWithKey(
  sort: ListSort,
  projection: CustomerProjection,
  ordinal: number,
  position: ListKey,
): number {
  const text = projection.textAt(ordinal)!;
  if (sort.field !== "id") {
    const mine = sort.field === "name"
      ? foldedName(text)
      : projection.search.orders.time(sort.field, ordinal);
    const key = position.key!;
    if (mine !== key) return mine < key ? -1 : 1;
  }
  return compareIdWith(text, position.id);
}

/** Compares two customers' texts in a sort, its direction included. */
export function compareTexts(sort: ListSort, a: string, b: string): number {
  let difference = 0;
  if (sort.field === "name") {
    const [x, y] = [foldedName(a), foldedName(b)];
    difference = x < y ? -1 : x > y ? 1 : 0;
  } else if (sort.field !== "id") {
    const at = sort.field === "created_at" ? 0 : 1;
    difference = readTimes(a)[at] - readTimes(b)[at];
  }
  if (difference === 0) difference = compareIds(a, b);
  return sort.descending ? -difference : difference;
}
