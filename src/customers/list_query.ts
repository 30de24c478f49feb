import { isUlid } from "../domain/customer.ts";
import { BadRequestError } from "../http/errors.ts";
import { LIMITS } from "../domain/validation.ts";
import {
  DEFAULT_PAGE_LIMIT as DEFAULT_LIMIT,
  MAX_PAGE_LIMIT as MAX_LIMIT,
} from "../http/paging.ts";
import { folded } from "../read_model/trigrams.ts";
import type { QueryNode } from "../search/query.ts";
import { parseQuery } from "../search/query_syntax.ts";
import { type ListKey, type ListSort, sortName, sortOf, SORTS } from "../search/list_sort.ts";
import type { SearchRequest } from "../search/search_run.ts";

const KNOWN = ["limit", "cursor", "email", "q", "query", "sort"];

/** A list request: the page it asks for, and whether the search indexes must answer it. */
export interface ListRequest extends SearchRequest {
  searches: boolean;
}

/**
 * Parses the list query (`url.search`); unknown or repeated parameters are refused so typos do
 * not go unnoticed. An empty filter (`email=`, `q=`, `query=`) is no filter, as a form sends it.
 */
export function parseListQuery(search: string): ListRequest {
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!isPercentEncodedUtf8(part)) {
      const name = part.split("=", 1)[0];
      throw new BadRequestError(`Query parameter "${name}" is not percent-encoded UTF-8`);
    }
  }
  const params = new URLSearchParams(search);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!KNOWN.includes(name)) {
      throw new BadRequestError(
        `Unknown query parameter "${name}"; use ${KNOWN.slice(0, -1).join(", ")} or sort`,
      );
    }
    if (seen.has(name)) throw new BadRequestError(`Query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const sort = parseSort(params.get("sort"));
  const request: ListRequest = { limit: DEFAULT_LIMIT, sort, searches: sort.field !== "id" };
  const limit = params.get("limit");
  if (limit !== null) {
    if (!/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) {
      throw new BadRequestError(`limit "${limit}" must be an integer from 1 to ${MAX_LIMIT}`);
    }
    request.limit = Number(limit);
  }
  const cursor = params.get("cursor");
  if (cursor !== null) request.after = decodeCursor(cursor, sort);
  const filter = filterOf(params);
  if (filter !== undefined) {
    request.query = filter;
    // An exact email alone is the email index's; everything else is the search indexes'.
    request.searches ||= !(filter.kind === "match" && filter.field.kind === "text" &&
      filter.field.name === "email" && filter.op === ":");
  }
  return request;
}

/** The filter of `query`, or of `q` and `email` (both: both must match). */
function filterOf(params: URLSearchParams): QueryNode | undefined {
  const query = params.get("query") || undefined;
  const q = params.get("q") || undefined;
  const email = params.get("email") || undefined;
  if (query !== undefined) {
    if (q !== undefined || email !== undefined) {
      throw new BadRequestError(
        `query cannot be given with ${q !== undefined ? "q" : "email"}: write it in the query`,
      );
    }
    return parseQuery(query);
  }
  if (email !== undefined && email.length > LIMITS.emailMax) {
    throw new BadRequestError(
      `email "${email.slice(0, 40)}…" is longer than ${LIMITS.emailMax} characters`,
    );
  }
  const nodes: QueryNode[] = [];
  if (email !== undefined) {
    nodes.push({
      kind: "match",
      field: { kind: "text", name: "email" },
      op: ":",
      value: folded(email),
    });
  }
  if (q !== undefined) {
    const value = folded(q);
    nodes.push({
      kind: "or",
      nodes: (["name", "email"] as const).map((name) => ({
        kind: "match",
        field: { kind: "text", name },
        op: "~",
        value,
      })),
    });
  }
  return nodes.length === 0 ? undefined : nodes.length === 1 ? nodes[0] : { kind: "and", nodes };
}

function parseSort(value: string | null): ListSort {
  if (value === null || value === "") return sortOf("id");
  const known = SORTS.find((sort) => sort === value);
  if (known === undefined) {
    throw new BadRequestError(`sort "${value}" is not one of ${SORTS.join(", ")}`);
  }
  return sortOf(known);
}

/** False when percent-decoding gives bytes that are not UTF-8 (URLSearchParams hides them). */
function isPercentEncodedUtf8(part: string): boolean {
  try {
    // A "%" without two hex digits is kept literally, as URLSearchParams does.
    decodeURIComponent(part.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"));
    return true;
  } catch {
    return false;
  }
}

/** An opaque cursor naming where a page ended: in id order its last id, else its sort key too. */
export function encodeCursor(last: ListKey, sort: ListSort = sortOf("id")): string {
  const text = sortName(sort) === "id"
    ? `v1:${last.id}`
    : `v2:${JSON.stringify([sortName(sort), last.id, last.key ?? null])}`;
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeCursor(cursor: string, sort: ListSort): ListKey {
  const refused = () => new BadRequestError(`cursor "${cursor}" is not a cursor this API issued`);
  let text = "";
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    text = new TextDecoder("utf-8", { fatal: true })
      .decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw refused();
  }
  let found: [string, string, unknown] | undefined;
  if (text.startsWith("v1:")) found = ["id", text.slice(3), null];
  else if (text.startsWith("v2:")) {
    try {
      found = JSON.parse(text.slice(3));
    } catch {
      throw refused();
    }
  }
  if (!Array.isArray(found) || found.length !== 3 || !isUlid(String(found[1]))) throw refused();
  const [name, id, key] = found;
  if (name !== sortName(sort)) {
    throw new BadRequestError(
      `cursor "${cursor}" continues sort=${name}, not sort=${sortName(sort)}`,
    );
  }
  if (sort.field === "id") return { id };
  const wanted = sort.field === "name" ? "string" : "number";
  if (typeof key !== wanted || (typeof key === "number" && !Number.isFinite(key))) throw refused();
  return { id, key: key as string | number };
}
