/**
 * The search as the contract states it, written apart from the indexes: a plain filter over
 * parsed customers, then a sort by the list's order and the cursor's position. Tests compare
 * every page the indexes answer with the page this answers.
 */
import type { Customer } from "../../src/domain/customer.ts";
import type { QueryNode } from "../../src/search/query.ts";

/** A sort as `sort=` names it. */
export type SortName =
  | "id"
  | "-id"
  | "created_at"
  | "-created_at"
  | "updated_at"
  | "-updated_at"
  | "name"
  | "-name";

/** Whether a customer matches a parsed query (values in it are lower-cased already). */
export function oracleMatches(node: QueryNode, customer: Customer): boolean {
  switch (node.kind) {
    case "and":
      return node.nodes.every((child) => oracleMatches(child, customer));
    case "or":
      return node.nodes.some((child) => oracleMatches(child, customer));
    case "not":
      return !oracleMatches(node.node, customer);
    case "time": {
      const at = Date.parse(node.name === "created_at" ? customer.created_at : customer.updated_at);
      return node.from <= at && at < node.to;
    }
  }
  const { field, op, value } = node;
  if (field.kind === "id") return value !== null && customer.id.toLowerCase() === value;
  if (field.kind === "metadata") {
    const has = Object.prototype.hasOwnProperty.call(customer.metadata, field.key);
    if (value === null) return !has;
    return has && customer.metadata[field.key].toLowerCase() === value;
  }
  const own = fieldValue(customer, field.name);
  if (value === null) return own === null;
  if (own === null) return false;
  return op === ":" ? own.toLowerCase() === value : own.toLowerCase().includes(value);
}

function fieldValue(customer: Customer, name: string): string | null {
  if (name === "name") return customer.name;
  if (name === "email") return customer.email;
  if (name === "phone") return customer.phone;
  const part = name.slice("address.".length) as keyof NonNullable<Customer["address"]>;
  return customer.address?.[part] ?? null;
}

/** A customer's place in a sort: its key and id, compared key first. */
function placeOf(sort: SortName, customer: Customer): [number | string, string] {
  const field = sort.replace(/^-/, "");
  if (field === "id") return ["", customer.id];
  if (field === "name") return [customer.name.toLowerCase(), customer.id];
  return [
    Date.parse(field === "created_at" ? customer.created_at : customer.updated_at),
    customer.id,
  ];
}

function comparePlaces(a: [number | string, string], b: [number | string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/**
 * The page a list answers: the customers matching `query`, in `sort`'s order, after the customer
 * `after` (its place then), at most `limit` of them, and whether more follow.
 */
export function oraclePage(
  customers: Iterable<Customer>,
  query: QueryNode | undefined,
  sort: SortName,
  limit: number,
  after?: Customer,
): { ids: string[]; more: boolean } {
  const sign = sort.startsWith("-") ? -1 : 1;
  const from = after === undefined ? undefined : placeOf(sort, after);
  const matching = [...customers]
    .filter((customer) => query === undefined || oracleMatches(query, customer))
    .filter((customer) =>
      from === undefined || sign * comparePlaces(placeOf(sort, customer), from) > 0
    )
    .sort((a, b) => sign * comparePlaces(placeOf(sort, a), placeOf(sort, b)));
  return {
    ids: matching.slice(0, limit).map((customer) => customer.id),
    more: matching.length > limit,
  };
}
