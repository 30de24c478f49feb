import { JSON_TYPE } from "../http/media_types.ts";
import {
  BODY_PROBLEMS,
  CHANGE_PROBLEMS,
  json,
  operation,
  param,
  schema,
  withHead,
  withRequestId,
  WRITE_PROBLEMS,
} from "./openapi_operation.ts";
import { PARAMETERS } from "./openapi_parameters.ts";
import { HEADERS, headersOf, problemResponses, type ResponseObject } from "./openapi_responses.ts";
import { SCHEMAS } from "./openapi_schemas.ts";

const customerOk = (description: string, status = "200") => ({
  [status]: { description, headers: headersOf(["ETag"]), content: json("Customer") },
});

const readiness = (
  id: string,
  summary: string,
  description: string,
  body: Record<string, ResponseObject>,
) => withHead(operation({ operationId: id, summary, description, tag: "operations", ok: body }));

/** Builds the document; the customer schemas come from the validator's own limits. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "customer-api",
      version: "1.0.0",
      summary: "A customer registry with a durable event log.",
      description: INFO_DESCRIPTION,
      contact: { name: "customer-api maintainers" },
    },
    servers: [{ url: "http://127.0.0.1:8000", description: "The default local address" }],
    tags: [
      { name: "customers", description: "The customer resource (contract §3, §4)." },
      { name: "operations", description: "Probes, metrics and this documentation (§7)." },
    ],
    paths: withRequestId({
      "/api/customers": {
        ...withHead(operation({
          operationId: "listCustomers",
          summary: "List customers",
          description: "Pages through live customers in ascending id order. Unknown or " +
            "repeated query parameters answer 400; send the same filters with `cursor` (the " +
            "`Link` header does).",
          tag: "customers",
          scope: "customers:read",
          parameters: ["limit", "cursor", "email", "q"].map(param),
          ok: {
            "200": {
              description: "One page of customers.",
              headers: headersOf(["Link"]),
              content: json("ListPage"),
            },
          },
          problems: ["bad-request"],
        })),
        post: operation({
          operationId: "createCustomer",
          summary: "Create a customer",
          description: "Creates a customer. With an `Idempotency-Key`, a repeat with the same " +
            "body within 24 h answers the first response again with `Idempotent-Replayed: " +
            "true`; the same key with another body answers 422, and while the first request is " +
            "in flight 409.",
          tag: "customers",
          scope: "customers:write",
          parameters: [param("Idempotency-Key")],
          requestBody: { required: true, content: json("CustomerInput") },
          ok: {
            "201": {
              description: "Created (or replayed); the body is the customer.",
              headers: headersOf(["Location", "ETag", "Idempotent-Replayed"]),
              content: json("Customer"),
            },
          },
          problems: [
            "bad-request",
            ...BODY_PROBLEMS,
            "email-taken",
            "idempotency-key-in-flight",
            "idempotency-key-reused",
            ...WRITE_PROBLEMS,
          ],
        }),
      },
      "/api/customers/{id}": {
        parameters: [param("id")],
        ...withHead(operation({
          operationId: "getCustomer",
          summary: "Get a customer",
          description: "Reads one live customer. `If-None-Match` with its ETag answers 304.",
          tag: "customers",
          scope: "customers:read",
          parameters: [param("If-None-Match")],
          ok: {
            ...customerOk("The customer."),
            "304": { description: "Not modified.", headers: headersOf(["ETag"]) },
          },
          problems: ["not-found"],
        })),
        put: operation({
          operationId: "replaceCustomer",
          summary: "Replace a customer",
          description: "Replaces every mutable field: an optional field left out becomes " +
            "`null` (`{}` for metadata).",
          tag: "customers",
          scope: "customers:write",
          parameters: [param("If-Match")],
          requestBody: { required: true, content: json("CustomerInput") },
          ok: customerOk("The customer after the change, with its new ETag."),
          problems: CHANGE_PROBLEMS,
        }),
        patch: operation({
          operationId: "updateCustomer",
          summary: "Update a customer (JSON Merge Patch)",
          description: "Applies a JSON Merge Patch (RFC 7396); the result must be a valid " +
            "customer.",
          tag: "customers",
          scope: "customers:write",
          parameters: [param("If-Match")],
          requestBody: {
            required: true,
            content: {
              "application/merge-patch+json": { schema: schema("CustomerPatch") },
              "application/json": { schema: schema("CustomerPatch") },
            },
          },
          ok: customerOk("The customer after the change, with its new ETag."),
          problems: CHANGE_PROBLEMS,
        }),
        delete: operation({
          operationId: "deleteCustomer",
          summary: "Delete a customer",
          description: "Deletes the customer; afterwards it is 404 and its email is free again.",
          tag: "customers",
          scope: "customers:write",
          parameters: [param("If-Match")],
          ok: { "204": { description: "Deleted." } },
          problems: ["not-found", "precondition-failed", ...WRITE_PROBLEMS],
        }),
      },
      "/healthz": readiness("getHealth", "Liveness probe", "200 while the process runs.", {
        "200": { description: "Alive.", content: json("Health") },
      }),
      "/readyz": readiness(
        "getReadiness",
        "Readiness probe",
        "503 while the event log replays after a start (every other route but /healthz " +
          "answers 503 `starting` then too), 200 once it is replayed.",
        {
          "200": { description: "Ready.", content: json("Health") },
          ...problemResponses(["starting"]),
        },
      ),
      "/metrics": readiness(
        "getMetrics",
        "Prometheus metrics",
        "Requests by route and status, latency histogram, events appended, fsync latency, " +
          "customers live.",
        {
          "200": {
            description: "Prometheus text exposition format 0.0.4.",
            content: { "text/plain": { schema: { type: "string" } } },
          },
        },
      ),
      "/api/openapi.json": readiness(
        "getOpenApiDocument",
        "This OpenAPI document",
        "The OpenAPI 3.1 description of the service.",
        {
          "200": {
            description: "The document.",
            content: { "application/json": { schema: { type: "object" } } },
          },
        },
      ),
      "/docs": readiness(
        "getDocsPage",
        "API reference page",
        "A self-contained HTML page rendered from this document; it loads nothing else.",
        {
          "200": {
            description: "The page.",
            content: { "text/html": { schema: { type: "string" } } },
          },
        },
      ),
    }),
    components: {
      schemas: SCHEMAS,
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: {
        UnknownPath: problemResponses(["not-found"])["404"],
        MethodNotAllowed: problemResponses(["method-not-allowed"])["405"],
        PreflightRefused: problemResponses(["origin-not-allowed"])["403"],
        PreflightAllowed: { description: "CORS preflight allowed.", headers: headersOf([]) },
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A JWT in `Authorization: Bearer …`. Scopes come from `scope` " +
            "(space-separated) or `scp`: `customers:read` allows GET and HEAD, " +
            "`customers:write` allows POST, PUT, PATCH and DELETE.",
        },
      },
    },
    "x-unmatched-requests": {
      description: "Answers to requests no operation describes.",
      responses: {
        "204": { $ref: "#/components/responses/PreflightAllowed" },
        "403": { $ref: "#/components/responses/PreflightRefused" },
        "404": { $ref: "#/components/responses/UnknownPath" },
        "405": { $ref: "#/components/responses/MethodNotAllowed" },
      },
    },
  };
}

const INFO_DESCRIPTION = [
  "Every `/api/customers…` request needs `Authorization: Bearer <JWT>`. Errors are RFC 9457 " +
  "`application/problem+json`; the `type` URNs each status can carry are listed per " +
  "operation. JSON bodies are `" + JSON_TYPE + "`.",
  "HEAD works wherever GET does. A known path with another method answers 405 with `Allow`; " +
  "an unknown path answers 404 (see `x-unmatched-requests`). Every response carries " +
  "`X-Request-Id` and `X-Content-Type-Options: nosniff`.",
  "Checks run in this order: route (404/405), token (401/403), rate limit (429), the customer " +
  "exists (404), media type (415), size (413), JSON (400), `If-Match` (412), field rules " +
  "(422), email uniqueness (409).",
].join("\n\n");

/** The document, built once. */
export const OPENAPI_DOCUMENT: Readonly<Record<string, unknown>> = buildOpenApiDocument();
const OPENAPI_JSON = JSON.stringify(OPENAPI_DOCUMENT);

/** GET /api/openapi.json. */
export function openApiResponse(): Response {
  return new Response(OPENAPI_JSON, { headers: { "content-type": JSON_TYPE } });
}
