import type { Schema } from "./openapi_schemas.ts";

/** Every problem type the server answers with (the URN ends in the key), its status and title. */
export const PROBLEM_TYPES = {
  "bad-request": { status: 400, title: "Bad request" },
  "malformed-body": { status: 400, title: "Malformed request body" },
  "unauthenticated": { status: 401, title: "Authentication required" },
  "invalid-token": { status: 401, title: "Invalid token" },
  "insufficient-scope": { status: 403, title: "Insufficient scope" },
  "origin-not-allowed": { status: 403, title: "Origin not allowed" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "email-taken": { status: 409, title: "Email already in use" },
  "idempotency-key-in-flight": { status: 409, title: "Request in flight" },
  "precondition-failed": { status: 412, title: "Precondition failed" },
  "body-too-large": { status: 413, title: "Request body too large" },
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  "validation-error": { status: 422, title: "The request body is invalid" },
  "idempotency-key-reused": { status: 422, title: "Idempotency key reused" },
  "rate-limited": { status: 429, title: "Too many requests" },
  "internal-error": { status: 500, title: "Internal server error" },
  "key-set-unavailable": { status: 503, title: "Token keys unavailable" },
  "storage-unavailable": { status: 503, title: "Storage unavailable" },
  "starting": { status: 503, title: "Service starting" },
  "storage-full": { status: 507, title: "Insufficient storage" },
} as const;

/** The slug of a problem type. */
export type ProblemSlug = keyof typeof PROBLEM_TYPES;

/** The full `type` URN of a problem slug. */
export function problemType(slug: ProblemSlug): string {
  return `urn:problem-type:customer-api:${slug}`;
}

/** An OpenAPI response object. */
export type ResponseObject = Record<string, unknown>;

/** Response headers a client can rely on, shared through `components.headers`. */
export const HEADERS: Record<string, Schema> = {
  "X-Request-Id": {
    description: "The client's X-Request-Id if it was sane (≤ 128 of `[A-Za-z0-9._-]`), " +
      "else a new one; on every response.",
    required: true,
    schema: { type: "string", pattern: "^[A-Za-z0-9._-]{1,128}$" },
  },
  "X-Content-Type-Options": {
    description: "Always `nosniff`.",
    required: true,
    schema: { type: "string", enum: ["nosniff"] },
  },
  "ETag": {
    description: 'The strong entity tag of the customer: `"<version>"`.',
    required: true,
    schema: { type: "string", pattern: '^"[1-9][0-9]*"$' },
  },
  "Location": {
    description: "The URL path of the created customer.",
    required: true,
    schema: { type: "string", pattern: "^/api/customers/[0-9A-HJKMNP-TV-Z]{26}$" },
  },
  "Link": {
    description: 'The next page, when there is one: `<…>; rel="next"` (RFC 8288).',
    schema: { type: "string", pattern: '^<[^>]+>; rel="next"$' },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same " +
      "Idempotency-Key and body; nothing new was created.",
    schema: { type: "string", enum: ["true"] },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  "RateLimit-Policy": {
    description: 'The rate-limit policy of the caller (`"default";q=<limit>;w=<seconds>`, ' +
      "IETF draft-ietf-httpapi-ratelimit-headers); present when rate limiting is on.",
    schema: { type: "string", pattern: '^"default";q=[0-9]+;w=[0-9]+$' },
  },
  "RateLimit": {
    description: 'What is left of the caller\'s quota: `"default";r=<remaining>;t=<seconds>`; ' +
      "present when rate limiting is on.",
    schema: { type: "string", pattern: '^"default";r=[0-9]+;t=[0-9]+$' },
  },
  "WWW-Authenticate": {
    description: 'The bearer challenge (RFC 6750): `Bearer realm="customers"`, with `error` ' +
      "and `error_description` for a bad token, or `error` and `scope` for a missing scope.",
    required: true,
    schema: { type: "string", pattern: '^Bearer realm="customers"' },
  },
  "Allow": {
    description: "The methods the path supports.",
    required: true,
    schema: { type: "string", pattern: "^[A-Z]+(, [A-Z]+)*$" },
  },
  "Accept": {
    description: "The request media types the operation accepts.",
    required: true,
    schema: { type: "string" },
  },
};

/** The name of a shared header. */
export type HeaderName = keyof typeof HEADERS;

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Header objects for a response: the two every response has, then `names`. */
export function headersOf(names: readonly string[]): Record<string, unknown> {
  const all = ["X-Request-Id", "X-Content-Type-Options", ...names];
  return Object.fromEntries(all.map((name) => [name, headerRef(name)]));
}

const HEADERS_BY_STATUS: Record<number, string[]> = {
  401: ["WWW-Authenticate"],
  403: ["WWW-Authenticate"],
  405: ["Allow"],
  415: ["Accept"],
  429: ["Retry-After"],
};

/**
 * The problem responses for a set of problem types, grouped by status: each names exactly the
 * types it can carry, so the document says which `type` a client can expect with each status.
 */
export function problemResponses(
  slugs: readonly ProblemSlug[],
  extraHeaders: readonly string[] = [],
): Record<string, ResponseObject> {
  const byStatus = new Map<number, ProblemSlug[]>();
  for (const slug of slugs) {
    const { status } = PROBLEM_TYPES[slug];
    byStatus.set(status, [...byStatus.get(status) ?? [], slug]);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    // WWW-Authenticate only comes with the bearer problems, not with a refused CORS origin.
    const statusHeaders = status === 403 && !group.includes("insufficient-scope")
      ? []
      : HEADERS_BY_STATUS[status] ?? [];
    const headers = headersOf([...statusHeaders, ...extraHeaders]);
    // Only some 503s know when to come back, so Retry-After is optional there.
    if (status === 503) headers["Retry-After"] = { ...HEADERS["Retry-After"], required: false };
    responses[String(status)] = {
      description: group.map((slug) => `${PROBLEM_TYPES[slug].title} (\`${slug}\`)`).join("; "),
      headers,
      content: {
        "application/problem+json": {
          schema: {
            type: "object",
            allOf: [{ $ref: "#/components/schemas/Problem" }],
            properties: {
              type: { enum: group.map(problemType) },
              status: { const: status },
            },
            // A validation problem lists every broken rule (contract §5).
            ...group.includes("validation-error")
              ? {
                if: { properties: { type: { const: problemType("validation-error") } } },
                then: {
                  required: ["errors"],
                  properties: {
                    errors: {
                      type: "array",
                      items: { $ref: "#/components/schemas/Violation" },
                      minItems: 1,
                    },
                  },
                },
              }
              : {},
          },
        },
      },
    };
  }
  return responses;
}
