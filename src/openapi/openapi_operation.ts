import type { ProblemSlug } from "../http/problem_types.ts";
import { headersOf, problemResponses, type ResponseObject } from "./openapi_responses.ts";

export type Operation = Record<string, unknown> & {
  operationId: string;
  summary: string;
  responses: Record<string, ResponseObject>;
};

/** The HTTP methods an OpenAPI path item can hold, in the order the document lists them. */
export const METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;

const RATE_HEADERS = ["RateLimit-Policy", "RateLimit"];
/** A reference to a shared parameter. */
export const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });
/** A reference to a shared schema. */
export const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A JSON body of a shared schema. */
export const json = (schemaName: string) => ({
  "application/json": { schema: schema(schemaName) },
});

/** The problems any API operation can answer: auth, rate limit, key set, 500, 503, replica lag. */
export const API_PROBLEMS: ProblemSlug[] = [
  "unauthenticated",
  "invalid-token",
  "insufficient-scope",
  "rate-limited",
  "internal-error",
  "key-set-unavailable",
  "starting",
  "replica-behind",
];
/** The problems of reading a JSON body. */
export const BODY_PROBLEMS: ProblemSlug[] = [
  "malformed-body",
  "body-timeout",
  "body-too-large",
  "unsupported-media-type",
  "validation-error",
];
/** The problems of appending to the event log. */
export const WRITE_PROBLEMS: ProblemSlug[] = ["storage-unavailable", "storage-full"];

export interface Spec {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** The scope a caller needs; none means a public operation (no token, no rate limit). */
  scope?: string;
  parameters?: unknown[];
  requestBody?: unknown;
  ok: Record<string, ResponseObject>;
  problems?: ProblemSlug[];
}

/** An operation with the headers and problem responses every operation of its kind has. */
export function operation(spec: Spec): Operation {
  const api = spec.scope !== undefined;
  const extra = api ? RATE_HEADERS : [];
  const ok = Object.fromEntries(
    Object.entries(spec.ok).map(([status, response]) => [status, {
      ...response,
      headers: { ...headersOf(extra), ...response.headers as object },
    }]),
  );
  const problems = [...spec.problems ?? [], ...api ? API_PROBLEMS : ["internal-error" as const]];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: api ? [{ bearerAuth: [spec.scope] }] : [],
    ...spec.parameters === undefined ? {} : { parameters: spec.parameters },
    ...spec.requestBody === undefined ? {} : { requestBody: spec.requestBody },
    responses: { ...ok, ...problemResponses(problems, extra) },
  };
}

/** The HEAD twin of a GET operation: the same answers without bodies (contract §4). */
function headOf(get: Operation): Operation {
  const responses = Object.fromEntries(
    Object.entries(get.responses).map(([status, { content: _, ...rest }]) => [status, rest]),
  );
  return {
    ...get,
    operationId: `head${get.operationId[0].toUpperCase()}${get.operationId.slice(1)}`,
    summary: `${get.summary} (headers only)`,
    description: "Answers exactly as GET does, without a body.",
    responses,
  };
}

/** A GET operation and its HEAD twin. */
export function withHead(get: Operation): Record<string, Operation> {
  return { get, head: headOf(get) };
}

/** Adds the X-Request-Id request header, which every path takes, to each path item. */
export function withRequestId(paths: Record<string, Record<string, unknown>>) {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [path, {
      ...item,
      parameters: [...(item.parameters as unknown[] | undefined) ?? [], param("X-Request-Id")],
    }]),
  );
}
