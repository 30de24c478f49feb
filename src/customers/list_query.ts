import { isUlid } from "../domain/customer.ts";
import type { ListQuery } from "../read_model/projection.ts";
import { BadRequestError } from "../http/errors.ts";

/** Default and maximum page sizes (contract §4). */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

const KNOWN = new Set(["limit", "cursor", "email", "q"]);

/** Parses the list query; unknown or repeated parameters are refused so typos do not go unnoticed. */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!KNOWN.has(name)) {
      throw new BadRequestError(`Unknown query parameter "${name}"; use limit, cursor, email or q`);
    }
    if (seen.has(name)) throw new BadRequestError(`Query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const query: ListQuery = { limit: DEFAULT_LIMIT };
  const limit = params.get("limit");
  if (limit !== null) {
    if (!/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) {
      throw new BadRequestError(`limit "${limit}" must be an integer from 1 to ${MAX_LIMIT}`);
    }
    query.limit = Number(limit);
  }
  const cursor = params.get("cursor");
  if (cursor !== null) query.after = decodeCursor(cursor);
  const email = params.get("email");
  if (email !== null) query.email = email;
  const q = params.get("q");
  if (q !== null && q !== "") query.q = q;
  return query;
}

/** An opaque cursor naming the last id of a page. */
export function encodeCursor(lastId: string): string {
  return btoa(`v1:${lastId}`).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeCursor(cursor: string): string {
  let text = "";
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    // Not base64: reported below.
  }
  const id = text.startsWith("v1:") ? text.slice(3) : "";
  if (!isUlid(id)) throw new BadRequestError(`cursor "${cursor}" is not a cursor this API issued`);
  return id;
}
