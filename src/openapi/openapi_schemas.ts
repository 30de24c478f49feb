/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it), kept loose on purpose: it is data. */
export type Schema = Record<string, unknown>;

/** A reference to a schema of `components.schemas`. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** The schema, or null. */
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });

const violation: Schema = {
  type: "object",
  required: ["pointer", "detail"],
  additionalProperties: false,
  properties: {
    pointer: { type: "string", description: "A JSON Pointer (RFC 6901) into the request body." },
    detail: { type: "string" },
  },
};

const problem: Schema = {
  type: "object",
  description: "An RFC 9457 problem; validation errors list every broken rule in `errors`.",
  required: ["type", "title", "status", "detail", "request_id"],
  properties: {
    type: { type: "string", pattern: "^urn:problem-type:customer-api:[a-z-]+$" },
    title: { type: "string" },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string" },
    request_id: { type: "string", description: "Equals the X-Request-Id response header." },
    errors: { type: "array", items: ref("Violation") },
  },
};

const health: Schema = {
  type: "object",
  required: ["status"],
  additionalProperties: false,
  properties: { status: { type: "string", enum: ["ok", "ready"] } },
};

/** The schemas every module shares in `components.schemas`: problems and probes. */
export const SCHEMAS: Record<string, Schema> = {
  Problem: problem,
  Violation: violation,
  Health: health,
};
