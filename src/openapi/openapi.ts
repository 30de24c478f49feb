import { JSON_TYPE } from "../http/media_types.ts";
import { type ApiDescription, InvalidModuleError } from "../http/api_module.ts";
import { withRequestId } from "./openapi_operation.ts";
import { PARAMETERS } from "./openapi_parameters.ts";
import { HEADERS, unmatchedResponses } from "./openapi_responses.ts";
import { SCHEMAS } from "./openapi_schemas.ts";
import { PUBLIC_PATHS } from "./public_paths.ts";

/** Builds the document from the modules' parts and the public paths. */
export function buildOpenApiDocument(modules: readonly ApiDescription[]): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "customer-api",
      version: "1.0.0",
      summary: "A customer registry with a durable event log.",
      description: INFO_DESCRIPTION,
      contact: { name: "customer-api maintainers" },
      // No license is granted yet; a LicenseRef is the SPDX way to say so until one is chosen.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // `servers` is added per request (served_document.ts): PUBLIC_URL or the request's origin.
    tags: [
      ...modules.flatMap((module) => module.tags ?? []),
      { name: "operations", description: "Probes, metrics and this documentation (§7)." },
    ],
    paths: withRequestId(joinPaths([...modules.map((module) => module.paths), PUBLIC_PATHS])),
    components: {
      ...moduleComponents(modules, { schemas: SCHEMAS, parameters: PARAMETERS, headers: HEADERS }),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A JWT in `Authorization: Bearer …`. Scopes come from `scope` " +
            `(space-separated) or \`scp\`: ${scopesText(modules)}.`,
        },
      },
    },
    "x-unmatched-requests": {
      description: "Answers to requests no operation describes.",
      responses: unmatchedResponses(),
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

/** Each module's scopes with what they allow, in one sentence. */
function scopesText(modules: readonly ApiDescription[]): string {
  const scopes = modules.flatMap((module) => Object.entries(module.scopes));
  return scopes.map(([name, allows]) => `\`${name}\` ${allows}`).join(", ");
}

/** The path items of every part; a path can be described by one part only. */
function joinPaths(parts: readonly Record<string, Record<string, unknown>>[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of parts.flatMap((part) => Object.entries(part))) {
    if (paths[path] !== undefined) throw new InvalidModuleError(`"${path}" is described twice`);
    paths[path] = item;
  }
  return paths;
}

/** The kernel's components with the modules' own added; a name can be defined only once. */
function moduleComponents(
  modules: readonly ApiDescription[],
  kernel: Record<string, Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  const merged = structuredClone(kernel);
  const added = modules.flatMap((module) => Object.entries(module.components ?? {}));
  for (const [kind, named] of added) {
    for (const [name, component] of Object.entries(named)) {
      merged[kind] ??= {};
      if (merged[kind][name] !== undefined) {
        throw new InvalidModuleError(`The component "${kind}/${name}" is defined twice`);
      }
      merged[kind][name] = component;
    }
  }
  return merged;
}
