import { json, operation, withHead } from "./openapi_operation.ts";
import { problemResponses, type ResponseObject } from "./openapi_responses.ts";

const readiness = (
  id: string,
  summary: string,
  description: string,
  body: Record<string, ResponseObject>,
) => withHead(operation({ operationId: id, summary, description, tag: "operations", ok: body }));

/** The kernel's own paths: probes, metrics and the documentation; no token needed. */
export const PUBLIC_PATHS: Record<string, Record<string, unknown>> = {
  "/healthz": readiness("getHealth", "Liveness probe", "200 while the process runs.", {
    "200": { description: "Alive.", content: json("Health") },
  }),
  "/readyz": readiness(
    "getReadiness",
    "Readiness probe",
    "503 while the event log replays after a start (every other route but /healthz " +
      "answers 503 `starting` then too), 200 once it is replayed; 503 " +
      "`maintenance-failing` after 3 failed compactions in a row (the detail names the cause). " +
      "On PostgreSQL (DATABASE_URL) also 503 `storage-unavailable` while the database cannot " +
      "be reached.",
    {
      "200": { description: "Ready.", content: json("Health") },
      ...problemResponses(["starting", "maintenance-failing", "storage-unavailable"]),
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
      // Every route but /healthz answers 503 `starting` while the log replays.
      ...problemResponses(["starting"]),
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
      // Every route but /healthz answers 503 `starting` while the log replays.
      ...problemResponses(["starting"]),
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
      // Every route but /healthz answers 503 `starting` while the log replays.
      ...problemResponses(["starting"]),
    },
  ),
};
