import { isUlid } from "../domain/customer.ts";
import { BadRequestError } from "../http/errors.ts";

/** A page of the webhook list: at most `limit` endpoints after the id `after`. */
export interface WebhookListQuery {
  limit: number;
  after?: string;
}

const KNOWN = new Set(["limit", "cursor"]);

/** Parses `limit` (1-1000, default 100) and `cursor` (an endpoint id); anything else is 400. */
export function parseWebhookListQuery(search: string): WebhookListQuery {
  const params = new URLSearchParams(search);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!KNOWN.has(name)) {
      throw new BadRequestError(`Unknown query parameter "${name}"; use limit or cursor`);
    }
    if (seen.has(name)) throw new BadRequestError(`Query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const query: WebhookListQuery = { limit: 100 };
  const limit = params.get("limit");
  if (limit !== null) {
    if (!/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) {
      throw new BadRequestError(`limit "${limit}" must be an integer from 1 to 1000`);
    }
    query.limit = Number(limit);
  }
  const cursor = params.get("cursor");
  if (cursor !== null) {
    if (!isUlid(cursor)) throw new BadRequestError(`cursor "${cursor}" is not one this API gave`);
    query.after = cursor;
  }
  return query;
}
