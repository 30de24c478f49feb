import { isUlid } from "../domain/customer.ts";
import type { ListQuery } from "../read_model/projection.ts";
import { BadRequestError } from "../http/errors.ts";
import { LIMITS } from "../domain/validation.ts";
import {
  DEFAULT_PAGE_LIMIT as DEFAULT_LIMIT,
  MAX_PAGE_LIMIT as MAX_LIMIT,
} from "../http/paging.ts";

const KNOWN = new Set(["limit", "cursor", "email", "q"]);

/**
 * Parses the list query (`url.search`); unknown or repeated parameters are refused so typos do
 * not go unnoticed. An empty filter (`email=`, `q=`) is no filter, as an HTML form sends it.
 */
export function parseListQuery(search: string): ListQuery {
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!isPercentEncodedUtf8(part)) {
      const name = part.split("=", 1)[0];
      throw new BadRequestError(`Query parameter "${name}" is not percent-encoded UTF-8`);
    }
  }
  const params = new URLSearchParams(search);
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
  const email = params.get("email") || undefined;
  if (email !== undefined && email.length > LIMITS.emailMax) {
    throw new BadRequestError(
      `email "${email.slice(0, 40)}…" is longer than ${LIMITS.emailMax} characters`,
    );
  }
  if (email !== undefined) query.email = email;
  const q = params.get("q") || undefined;
  if (q !== undefined) query.q = q;
  return query;
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
