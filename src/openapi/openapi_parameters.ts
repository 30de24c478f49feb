import { LIMITS } from "../domain/validation.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../customers/list_query.ts";
import { ULID_PATTERN } from "../domain/customer.ts";
import { MIN_LOG_SEQ_WAIT_MS } from "../http/replica_gate.ts";

const EMPTY_FILTER = "Empty (`?email=&q=`, as an HTML form sends an empty field) or absent " +
  "means no filter; a value whose percent-encoding is not UTF-8 answers 400.";

/** The request parameters of the document's `components.parameters`. */
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
  email: {
    name: "email",
    in: "query",
    required: false,
    description: "Only the customer with this email (exact, case-insensitive). Longer than " +
      `${LIMITS.emailMax} characters answers 400. ${EMPTY_FILTER}`,
    schema: { type: "string", maxLength: LIMITS.emailMax },
  },
  q: {
    name: "q",
    in: "query",
    required: false,
    description: `Case-insensitive substring of name or email. ${EMPTY_FILTER}`,
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
  "Idempotency-Key": {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description: "1 to 255 printable ASCII characters, scoped to the token's `sub`; kept 24 h.",
    schema: { type: "string", pattern: "^[ -~]{1,255}$" },
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
