/** The OpenAPI schemas of the webhook module. */
import { PUBLIC_EVENT_TYPES } from "../feed/public_event.ts";
import { schema } from "../openapi/openapi_operation.ts";
import { WEBHOOK_LIMITS } from "./webhook_input.ts";

const ULID = "^[0-7][0-9A-HJKMNP-TV-Z]{25}$";
const nullable = (type: string) => ({ type: [type, "null"] });
const typesSchema = {
  type: "array",
  minItems: 1,
  uniqueItems: true,
  items: { type: "string", enum: [...PUBLIC_EVENT_TYPES] },
};
const settable = {
  url: {
    type: "string",
    maxLength: WEBHOOK_LIMITS.urlMax,
    description: "https (http too with WEBHOOK_ALLOW_PRIVATE=1).",
  },
  types: { ...typesSchema, description: "Event types to deliver; default all." },
  description: { type: "string", maxLength: WEBHOOK_LIMITS.descriptionMax },
  enabled: { type: "boolean" },
};
const webhook = {
  type: "object",
  required: [
    "id",
    "url",
    "types",
    "description",
    "enabled",
    "status",
    "disabled_reason",
    "last_seq",
    "created_at",
    "updated_at",
    "version",
  ],
  properties: {
    id: { type: "string", pattern: ULID },
    ...settable,
    status: { type: "string", enum: ["active", "disabled"] },
    disabled_reason: {
      ...nullable("string"),
      description: "`gone`, `failures: …`, `retention` or null. Enabling again resumes at " +
        "`last_seq`; after `retention` (the log no longer holds what follows it) at the head.",
    },
    last_seq: { type: "integer", minimum: 0, description: "Events up to this seq are delivered." },
    created_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
    version: { type: "integer", minimum: 1 },
  },
  additionalProperties: false,
};
/** The schemas of the webhook endpoints' bodies and answers. */
export const WEBHOOK_SCHEMAS = {
  Webhook: webhook,
  WebhookWithSecret: {
    ...webhook,
    required: [...webhook.required, "secret"],
    properties: {
      ...webhook.properties,
      secret: {
        type: "string",
        pattern: "^whsec_[A-Za-z0-9+/]{43}=$",
        description: "Shown only here.",
      },
    },
  },
  WebhookInput: {
    type: "object",
    required: ["url"],
    properties: settable,
    description: "Read-only fields of a Webhook are ignored when sent; others answer 422.",
  },
  WebhookPatch: { type: "object", properties: settable, description: "A JSON Merge Patch." },
  WebhookPage: {
    type: "object",
    required: ["data", "next_cursor"],
    properties: {
      data: { type: "array", items: schema("Webhook") },
      next_cursor: nullable("string"),
    },
    additionalProperties: false,
  },
  PingResult: {
    type: "object",
    required: ["delivered", "status_code", "error", "duration_ms"],
    properties: {
      delivered: { type: "boolean" },
      status_code: nullable("integer"),
      error: nullable("string"),
      duration_ms: { type: "number" },
    },
    additionalProperties: false,
  },
  DeliveryPage: {
    type: "object",
    required: ["data"],
    properties: {
      data: {
        type: "array",
        items: {
          type: "object",
          required: [
            "seq",
            "event_type",
            "attempt",
            "at",
            "status_code",
            "error",
            "duration_ms",
            "next_attempt_at",
          ],
          properties: {
            seq: { type: "integer", minimum: 0, description: "0 for a ping." },
            event_type: { type: "string" },
            attempt: { type: "integer", minimum: 1 },
            at: { type: "string", format: "date-time" },
            status_code: nullable("integer"),
            error: nullable("string"),
            duration_ms: { type: "number" },
            next_attempt_at: { type: ["string", "null"], format: "date-time" },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
};
