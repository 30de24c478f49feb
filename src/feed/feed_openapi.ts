import "./feed_problems.ts";
import { READ_SCOPE } from "../auth/scopes.ts";
import type { ApiDescription } from "../http/api_module.ts";
import { operation, param, schema, withHead } from "../openapi/openapi_operation.ts";
import { headersOf } from "../openapi/openapi_responses.ts";
import { FEED_SCHEMAS } from "./feed_schemas.ts";
import { PUBLIC_EVENT_TYPES } from "./public_event.ts";

const query = (name: string, description: string, schemaOf: unknown) => ({
  name,
  in: "query",
  required: false,
  description,
  schema: schemaOf,
});

/** The feed's own parameters, shared through `components.parameters`. */
const PARAMETERS: Record<string, unknown> = {
  feed_after: query("after", "Read after this seq (default 0: from the oldest retained).", {
    type: "integer",
    minimum: 0,
  }),
  type: {
    ...query("type", "Only these event types (repeatable).", {
      type: "array",
      items: { type: "string", enum: [...PUBLIC_EVENT_TYPES] },
    }),
    style: "form",
    explode: true,
  },
  customer_id: query("customer_id", "Only this customer's events.", {
    type: "string",
    pattern: "^[0-9A-HJKMNP-TV-Z]{26}$",
  }),
  wait: query("wait", "Long poll: seconds to wait for a matching event.", {
    type: "integer",
    minimum: 0,
    maximum: 60,
  }),
  access_token: query(
    "access_token",
    "A stream token (`POST /api/events/stream-tokens`); accepted only by the event stream.",
    { type: "string" },
  ),
  "Last-Event-ID": {
    name: "Last-Event-ID",
    in: "header",
    required: false,
    description: "The event stream resumes after this seq (wins over `after`).",
    schema: { type: "string", pattern: "^[0-9]{1,16}$" },
  },
  version_after: query("after", "Events after this version (default 0).", {
    type: "integer",
    minimum: 0,
  }),
  version: {
    name: "n",
    in: "path",
    required: true,
    description: "A version number of the customer.",
    schema: { type: "string" },
  },
};

const customer = { $ref: "#/components/schemas/Customer" };

/** The feed module's part of the OpenAPI document: the feed, stream tokens and history. */
export const FEED_API: ApiDescription = {
  tags: [{
    name: "events",
    description: "The change feed and customer history (contract §8, §9).",
  }],
  scopes: { [READ_SCOPE]: "allows GET and HEAD" },
  components: {
    parameters: PARAMETERS,
    schemas: FEED_SCHEMAS,
  },
  paths: {
    "/api/events": {
      ...withHead(operation({
        operationId: "readEvents",
        summary: "Read the change feed",
        description: "Every committed event in seq order. Pass `last_seq` as `after` next " +
          "time. With `Accept: text/event-stream` the answer is a Server-Sent Events stream " +
          "(`id`, `event`, `data` frames, `Last-Event-ID` resume, heartbeats, `bookmark` " +
          "events); `access_token` (a stream token) is accepted only then.",
        tag: "events",
        scope: READ_SCOPE,
        parameters: ["feed_after", "limit", "type", "customer_id", "wait", "access_token"]
          .map(param).concat(param("Last-Event-ID"), param("Min-Log-Seq")),
        ok: {
          "200": {
            description: "A page of events, or (`text/event-stream`) an event stream.",
            headers: headersOf(["Log-Seq"]),
            content: {
              "application/json": { schema: schema("FeedPage") },
              "text/event-stream": { schema: { type: "string" } },
            },
          },
        },
        problems: ["bad-request", "cursor-expired", "too-many-streams"],
      })),
    },
    "/api/events/stream-tokens": {
      post: operation({
        operationId: "createStreamToken",
        summary: "Get a token for the event stream",
        description: "A token valid at most 60 s, accepted as `?access_token=` only by the " +
          "event stream (for EventSource, which cannot send Authorization).",
        tag: "events",
        scope: READ_SCOPE,
        ok: {
          "201": {
            description: "The token.",
            content: { "application/json": { schema: schema("StreamToken") } },
          },
        },
      }),
    },
    "/api/customers/{id}/history": {
      parameters: [param("id")],
      ...withHead(operation({
        operationId: "customerHistory",
        summary: "A customer's history",
        description: "The live customer's events, oldest first, paged by version.",
        tag: "events",
        scope: READ_SCOPE,
        parameters: ["version_after", "limit", "Min-Log-Seq"].map(param),
        ok: {
          "200": {
            description: "A page of the customer's events.",
            content: { "application/json": { schema: schema("HistoryPage") } },
          },
        },
        problems: ["bad-request", "not-found"],
      })),
    },
    "/api/customers/{id}/versions/{n}": {
      parameters: [param("id"), param("version")],
      ...withHead(operation({
        operationId: "customerVersion",
        summary: "A customer as it was at a version",
        description: "404 for a version that never existed, 410 past retention.",
        tag: "events",
        scope: READ_SCOPE,
        parameters: [param("Min-Log-Seq")],
        ok: {
          "200": {
            description: "The customer at that version.",
            headers: headersOf(["ETag"]),
            content: { "application/json": { schema: customer } },
          },
        },
        problems: ["bad-request", "not-found", "version-expired"],
      })),
    },
  },
};
