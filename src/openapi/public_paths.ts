import { json, operation, withHead } from "./openapi_operation.ts";
import type { ResponseObject } from "./openapi_responses.ts";

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
    "200 once the event log is replayed. The port only opens after replay, so a client " +
      "that can connect sees 200.",
    { "200": { description: "Ready.", content: json("Health") } },
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
};
