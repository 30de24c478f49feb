import type { Schema } from "./openapi_schemas.ts";
import {
  PROBLEM_TYPES,
  problemHeaders,
  problemMembers,
  type ProblemSlug,
  problemType,
} from "../http/problem_types.ts";

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
  "Log-Seq": {
    description: "The seq of the newest event the answer reflects; for a write, its own event.",
    required: true,
    schema: { type: "string", pattern: "^[0-9]{1,16}$" },
  },
  "Link": {
    description: 'The next page, when there is one: `<…>; rel="next"` (RFC 8288).',
    required: false,
    schema: { type: "string", pattern: '^<[^>]+>; rel="next"$' },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same " +
      "Idempotency-Key and body; nothing new was created.",
    required: false,
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
    required: false,
    schema: { type: "string", pattern: '^"default";q=[0-9]+;w=[0-9]+$' },
  },
  "RateLimit": {
    description: 'What is left of the caller\'s quota: `"default";r=<remaining>;t=<seconds>`; ' +
      "present when rate limiting is on.",
    required: false,
    schema: { type: "string", pattern: '^"default";r=[0-9]+;t=[0-9]+$' },
  },
  "WWW-Authenticate": {
    description: 'The bearer challenge (RFC 6750): `Bearer realm="customers"`, with `error` ' +
      "and `error_description` for a bad token, or `error` and `scope` for a missing scope.",
    required: true,
    schema: { type: "string", pattern: '^Bearer realm="customers"' },
  },
  "Accept": {
    description: "The request media types the operation accepts.",
    required: true,
    schema: { type: "string" },
  },
};

/** Headers only answers to unmatched requests carry; inlined there, so not components. */
const UNMATCHED_HEADERS: Record<string, Schema> = {
  "Allow": {
    description: "The methods the path supports.",
    required: true,
    schema: { type: "string", pattern: "^[A-Z]+(, [A-Z]+)*$" },
  },
};

export type HeaderName = keyof typeof HEADERS;

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Header objects for a response: the two every response has, then `names`. */
export function headersOf(names: readonly string[]): Record<string, unknown> {
  const all = ["X-Request-Id", "X-Content-Type-Options", ...names];
  return Object.fromEntries(all.map((name) => [name, headerRef(name)]));
}

/** The problem responses for these problem types by status, each naming the `type`s it carries. */
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
    const { always, sometimes } = problemHeaders(group);
    const headers = headersOf([...always, ...extraHeaders]);
    // A header only some of the group's errors send (Retry-After on a 503) is optional.
    for (const name of sometimes) headers[name] = { ...HEADERS[name], required: false };
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
            // A problem with members of its own, such as a validation problem's errors (§5).
            ...membersRule(group),
          },
        },
      },
    };
  }
  return responses;
}

/** The schemas of the members beyond RFC 9457's that the problem table names. */
const MEMBER_SCHEMAS: Record<string, Schema> = {
  // A validation problem lists every broken rule (contract §5).
  errors: { type: "array", items: { $ref: "#/components/schemas/Violation" }, minItems: 1 },
  // A cursor-expired problem says where the feed begins and ends now (contract §8).
  oldest_seq: { type: "integer", minimum: 1 },
  last_seq: { type: "integer", minimum: 0 },
};

/** Requires, for the one type of a group that has members, those members. */
function membersRule(group: readonly ProblemSlug[]): Record<string, unknown> {
  const [slug, ...more] = group.filter((slug) => problemMembers(slug).length > 0);
  if (slug === undefined) return {};
  if (more.length > 0) throw new Error(`Two problems with members share a status: "${slug}"`);
  const members = problemMembers(slug);
  return {
    if: { properties: { type: { const: problemType(slug) } } },
    then: {
      required: members,
      properties: Object.fromEntries(members.map((name) => [name, MEMBER_SCHEMAS[name]])),
    },
  };
}

/**
 * The answers to requests no operation describes, for `x-unmatched-requests`; headers are inlined,
 * as linters count no reference from an extension as a use.
 */
export function unmatchedResponses(): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {
    "204": { description: "CORS preflight allowed.", headers: headersOf([]) },
    ...problemResponses(["origin-not-allowed", "not-found", "method-not-allowed"]),
  };
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, {
      ...response,
      headers: Object.fromEntries(
        Object.keys(response.headers as object)
          .map((name) => [name, HEADERS[name] ?? UNMATCHED_HEADERS[name]]),
      ),
    }]),
  );
}
