import { isUlid } from "../domain/customer.ts";
import { BadRequestError } from "../http/errors.ts";
import { PUBLIC_EVENT_TYPES } from "./public_event.ts";

/** Default and maximum feed page sizes, and the longest long poll (contract §8). */
export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;
export const FEED_MAX_WAIT_SECONDS = 60;

export interface FeedQuery {
  /** The seq to read after; undefined means from the oldest retained event. */
  after?: number;
  limit: number;
  types: ReadonlySet<string>;
  customerId?: string;
  wait: number;
}

const KNOWN = new Set(["after", "limit", "type", "customer_id", "wait", "access_token"]);
const REPEATABLE = new Set(["type"]);

/** Parses `GET /api/events`'s query: unknown or repeated parameters (but `type`) answer 400. */
export function parseFeedQuery(search: string, stream = false): FeedQuery {
  const params = new URLSearchParams(search);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!KNOWN.has(name)) {
      throw new BadRequestError(
        `Unknown query parameter "${name}"; use after, limit, type, customer_id or wait`,
      );
    }
    if (name === "access_token" && !stream) {
      throw new BadRequestError(
        "access_token is accepted only by the event stream (Accept: text/event-stream)",
      );
    }
    if (seen.has(name) && !REPEATABLE.has(name)) {
      throw new BadRequestError(`Query parameter "${name}" is given twice`);
    }
    seen.add(name);
  }
  const query: FeedQuery = {
    limit: integer(params.get("limit"), "limit", 1, FEED_MAX_LIMIT) ?? FEED_DEFAULT_LIMIT,
    types: new Set(params.getAll("type").map(eventType)),
    wait: integer(params.get("wait"), "wait", 0, FEED_MAX_WAIT_SECONDS) ?? 0,
  };
  const after = integer(params.get("after"), "after", 0, Number.MAX_SAFE_INTEGER);
  if (after !== undefined) query.after = after;
  const customerId = params.get("customer_id");
  if (customerId !== null) {
    if (!isUlid(customerId)) throw new BadRequestError(`customer_id "${customerId}" is not a ULID`);
    query.customerId = customerId;
  }
  return query;
}

/** A `Last-Event-ID` header's seq; a malformed one is a 400, not a silent restart. */
export function parseLastEventId(header: string | null): number | undefined {
  if (header === null || header === "") return undefined;
  return integer(header, "Last-Event-ID", 0, Number.MAX_SAFE_INTEGER);
}

function integer(text: string | null, name: string, min: number, max: number) {
  if (text === null) return undefined;
  const value = Number(text);
  if (!/^[0-9]{1,16}$/.test(text) || value < min || value > max) {
    throw new BadRequestError(`${name} "${text}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

function eventType(text: string): string {
  if (!(PUBLIC_EVENT_TYPES as readonly string[]).includes(text)) {
    throw new BadRequestError(
      `type "${text}" is not an event type; use ${PUBLIC_EVENT_TYPES.join(", ")}`,
    );
  }
  return text;
}
