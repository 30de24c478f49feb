import "./webhook_problems.ts";
import { WEBHOOKS_SCOPE } from "../auth/scopes.ts";
import type { ApiDescription } from "../http/api_module.ts";
import type { ProblemSlug } from "../http/problem_types.ts";
import {
  BODY_PROBLEMS,
  json,
  operation,
  param,
  schema,
  withHead,
} from "../openapi/openapi_operation.ts";
import { headersOf } from "../openapi/openapi_responses.ts";
import { WEBHOOK_SCHEMAS } from "./webhook_schemas.ts";

const STORE_PROBLEMS: ProblemSlug[] = ["storage-unavailable", "storage-full"];
/** Reads too fail while the database that holds the endpoints (with DATABASE_URL) is down. */
const READ_PROBLEMS: ProblemSlug[] = ["storage-unavailable"];
const ok = (description: string, schemaName: string, headers: string[] = ["ETag"]) => ({
  "200": { description, headers: headersOf(headers), content: json(schemaName) },
});
const common = { tag: "webhooks", scope: WEBHOOKS_SCOPE };

/** The webhook module's part of the OpenAPI document. */
export const WEBHOOK_API: ApiDescription = {
  tags: [{ name: "webhooks", description: "Signed push delivery of the event log." }],
  scopes: { [WEBHOOKS_SCOPE]: "allows managing webhook endpoints" },
  components: {
    schemas: WEBHOOK_SCHEMAS,
    headers: {
      WebhookLocation: {
        description: "The URL path of the registered endpoint.",
        required: true,
        schema: { type: "string", pattern: "^/api/webhooks/[0-9A-HJKMNP-TV-Z]{26}$" },
      },
    },
  },
  paths: {
    "/api/webhooks": {
      ...withHead(operation({
        ...common,
        operationId: "listWebhooks",
        summary: "List webhook endpoints",
        description: "Pages through endpoints in id order; secrets are never shown.",
        parameters: [param("limit"), param("cursor")],
        ok: ok("One page of endpoints.", "WebhookPage", ["Link"]),
        problems: ["bad-request", ...READ_PROBLEMS],
      })),
      post: operation({
        ...common,
        operationId: "createWebhook",
        summary: "Register a webhook endpoint",
        description: "Registers an endpoint that receives events committed from now on. The " +
          "answer is the only one that shows the secret.",
        requestBody: { required: true, content: json("WebhookInput") },
        ok: {
          "201": {
            description: "Registered.",
            headers: {
              ...headersOf(["ETag"]),
              Location: { $ref: "#/components/headers/WebhookLocation" },
            },
            content: json("WebhookWithSecret"),
          },
        },
        problems: [...BODY_PROBLEMS, "webhook-limit-reached", ...STORE_PROBLEMS],
      }),
    },
    "/api/webhooks/{id}": {
      parameters: [param("id")],
      ...withHead(operation({
        ...common,
        operationId: "getWebhook",
        summary: "Get a webhook endpoint",
        description: "Reads one endpoint, its state and checkpoint.",
        ok: ok("The endpoint.", "Webhook"),
        problems: ["not-found", ...READ_PROBLEMS],
      })),
      patch: operation({
        ...common,
        operationId: "updateWebhook",
        summary: "Update a webhook endpoint (JSON Merge Patch)",
        description: "Changes url, types, description or enabled; enabling again resumes " +
          "delivery at the checkpoint.",
        parameters: [param("If-Match")],
        requestBody: {
          required: true,
          content: {
            "application/merge-patch+json": { schema: schema("WebhookPatch") },
            "application/json": { schema: schema("WebhookPatch") },
          },
        },
        ok: ok("The endpoint after the change.", "Webhook"),
        problems: ["not-found", ...BODY_PROBLEMS, "precondition-failed", ...STORE_PROBLEMS],
      }),
      delete: operation({
        ...common,
        operationId: "deleteWebhook",
        summary: "Delete a webhook endpoint",
        description: "Stops delivery and removes the endpoint and its deliveries log.",
        parameters: [param("If-Match")],
        ok: { "204": { description: "Deleted." } },
        problems: ["not-found", "precondition-failed", ...STORE_PROBLEMS],
      }),
    },
    "/api/webhooks/{id}/rotate-secret": {
      parameters: [param("id")],
      post: operation({
        ...common,
        operationId: "rotateWebhookSecret",
        summary: "Rotate a webhook endpoint's secret",
        description: "Shows a new secret once; for 24 h deliveries carry signatures with both.",
        parameters: [param("If-Match")],
        ok: ok("The endpoint with its new secret.", "WebhookWithSecret"),
        problems: ["not-found", "precondition-failed", ...STORE_PROBLEMS],
      }),
    },
    "/api/webhooks/{id}/ping": {
      parameters: [param("id")],
      post: operation({
        ...common,
        operationId: "pingWebhook",
        summary: "Send a webhook.ping delivery now",
        description: "One signed `webhook.ping` delivery outside the order; answers its outcome.",
        ok: ok("The attempt's outcome.", "PingResult", []),
        problems: ["not-found", ...STORE_PROBLEMS],
      }),
    },
    "/api/webhooks/{id}/deliveries": {
      parameters: [param("id")],
      ...withHead(operation({
        ...common,
        operationId: "listWebhookDeliveries",
        summary: "Recent delivery attempts",
        description: "At least the last 100 attempts, newest first, kept across restarts.",
        ok: ok("The attempts.", "DeliveryPage", []),
        problems: ["not-found", ...READ_PROBLEMS],
      })),
    },
  },
};
