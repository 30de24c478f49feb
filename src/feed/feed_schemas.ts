import { schema } from "../openapi/openapi_operation.ts";
import { PUBLIC_EVENT_TYPES } from "./public_event.ts";

const customer = { $ref: "#/components/schemas/Customer" };
const ULID = "^[0-9A-HJKMNP-TV-Z]{26}$";
const EXAMPLE_ID = "01J0000000000000000000000A";

/** An example event of a type that carries the customer after the change. */
function eventExample(seq: number, type: string, version: number) {
  const time = `2026-01-0${version}T03:04:05.678Z`;
  return {
    seq,
    type,
    time,
    customer_id: EXAMPLE_ID,
    version,
    actor: "alice",
    request_id: `req-${version}`,
    data: {
      id: EXAMPLE_ID,
      name: version === 1 ? "Ada Lovelace" : "Ada King",
      email: "ada@example.com",
      phone: null,
      address: null,
      metadata: {},
      created_at: "2026-01-01T03:04:05.678Z",
      updated_at: time,
      version,
    },
  };
}

/** The feed's schemas: the public event (with an example), feed and history pages, a stream token. */
export const FEED_SCHEMAS: Record<string, unknown> = {
  Event: {
    type: "object",
    description: "One committed change, the same in the feed, in history and in webhooks.",
    required: ["seq", "type", "time", "customer_id", "version", "actor", "request_id", "data"],
    additionalProperties: false,
    properties: {
      seq: { type: "integer", minimum: 1 },
      type: { type: "string", enum: [...PUBLIC_EVENT_TYPES] },
      time: { type: "string", format: "date-time" },
      customer_id: { type: "string", pattern: ULID },
      version: { type: "integer", minimum: 1 },
      actor: { type: "string" },
      request_id: { type: "string" },
      data: { oneOf: [customer, { type: "null" }] },
    },
    examples: [
      eventExample(129, "customer.created", 1),
      eventExample(130, "customer.updated", 2),
      {
        seq: 131,
        type: "customer.deleted",
        time: "2026-01-02T03:04:05.678Z",
        customer_id: EXAMPLE_ID,
        version: 3,
        actor: "alice",
        request_id: "req-1",
        data: null,
      },
    ],
  },
  FeedPage: {
    type: "object",
    required: ["data", "last_seq", "has_more"],
    additionalProperties: false,
    properties: {
      data: { type: "array", items: schema("Event") },
      last_seq: { type: "integer", minimum: 0 },
      has_more: { type: "boolean" },
    },
  },
  HistoryPage: {
    type: "object",
    required: ["data", "has_more"],
    additionalProperties: false,
    properties: {
      data: { type: "array", items: schema("Event") },
      has_more: { type: "boolean" },
    },
  },
  StreamToken: {
    type: "object",
    required: ["token", "expires_in", "expires_at"],
    additionalProperties: false,
    properties: {
      token: { type: "string" },
      expires_in: { type: "integer", minimum: 0, maximum: 60 },
      expires_at: { type: "string", format: "date-time" },
    },
  },
};
