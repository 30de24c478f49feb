import {
  DEFAULT_PAGE_LIMIT as DEFAULT_LIMIT,
  MAX_PAGE_LIMIT as MAX_LIMIT,
} from "../http/paging.ts";
import { ULID_PATTERN } from "../domain/customer.ts";
import { MIN_LOG_SEQ_WAIT_MS } from "../http/replica_gate.ts";

/** The request parameters every module shares in `components.parameters`. */
export const PARAMETERS: Record<string, unknown> = {
  limit: {
    name: "limit",
    in: "query",
    required: false,
    description: `Page size, 1 to ${MAX_LIMIT}; anything else (empty too) answers 400.`,
    schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  },
  cursor: {
    name: "cursor",
    in: "query",
    required: false,
    description: "The opaque `next_cursor` of the previous page; any other value answers 400.",
    schema: { type: "string" },
  },
  id: {
    name: "id",
    in: "path",
    required: true,
    description: "The resource's id (a customer's, a webhook endpoint's); a malformed id answers " +
      "404 like an unknown one.",
    schema: { type: "string", pattern: ULID_PATTERN },
  },
  "If-Match": {
    name: "If-Match",
    in: "header",
    required: false,
    description: 'Strong ETags (`"3"`) or `*`; a mismatch answers 412 and changes nothing.',
    schema: { type: "string" },
  },
  "If-None-Match": {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "ETags compared weakly; the current one answers 304.",
    schema: { type: "string" },
  },
  "X-Request-Id": {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description: "Your id for the request (≤ 128 of `[A-Za-z0-9._-]`), echoed in the " +
      "response and the logs; otherwise the server makes one.",
    schema: { type: "string" },
  },
  "Min-Log-Seq": {
    name: "Min-Log-Seq",
    in: "header",
    required: false,
    description: "With replicas on PostgreSQL: the `Log-Seq` of an earlier answer (from any " +
      "replica). This replica waits until it has applied that seq, up to " +
      `${MIN_LOG_SEQ_WAIT_MS / 1000} s, and otherwise answers 503 \`replica-behind\` with ` +
      "`Retry-After`; anything but a whole number answers 400. A single server has applied " +
      "every seq it ever answered.",
    schema: { type: "string", pattern: "^[0-9]{1,15}$" },
  },
};
