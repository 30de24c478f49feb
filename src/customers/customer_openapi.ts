import "./customer_problems.ts";
import { READ_SCOPE, WRITE_SCOPE } from "../auth/scopes.ts";
import type { ApiDescription } from "../http/api_module.ts";
import type { ProblemSlug } from "../http/problem_types.ts";
import {
  BODY_PROBLEMS,
  json,
  operation,
  param,
  schema,
  withHead,
  WRITE_PROBLEMS,
} from "../openapi/openapi_operation.ts";
import { headersOf } from "../openapi/openapi_responses.ts";
import { LIMITS } from "../domain/validation.ts";
import { CUSTOMER_SCHEMAS } from "./customer_schemas.ts";
import { SEARCH_PARAMETERS } from "./search_parameters.ts";

const customerOk = (description: string, status = "200") => ({
  [status]: { description, headers: headersOf(["ETag"]), content: json("Customer") },
});

/** What a PUT or PATCH of an existing customer can answer besides the common problems. */
const CHANGE_PROBLEMS: ProblemSlug[] = [
  "not-found",
  ...BODY_PROBLEMS,
  "precondition-failed",
  "email-taken",
  ...WRITE_PROBLEMS,
  "write-contended",
];

const EMPTY_FILTER = "Empty (`?email=&q=`, as an HTML form sends an empty field) or absent " +
  "means no filter; a value whose percent-encoding is not UTF-8 answers 400.";

/** The customer module's own parameters: the list's filters and the create's key. */
const CUSTOMER_PARAMETERS: Record<string, unknown> = {
  email: {
    name: "email",
    in: "query",
    required: false,
    description: "Only the customer with this email (exact, case-insensitive). Longer than " +
      `${LIMITS.emailMax} characters answers 400. ${EMPTY_FILTER}`,
    schema: { type: "string", maxLength: LIMITS.emailMax },
  },
  q: {
    name: "q",
    in: "query",
    required: false,
    description: "Case-insensitive substring of name or email, of any length: the shorthand of " +
      `\`name~"<q>" OR email~"<q>"\`. ${EMPTY_FILTER}`,
    schema: { type: "string" },
  },
  "Idempotency-Key": {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description: "1 to 255 printable ASCII characters, scoped to the token's `sub`; kept 24 h.",
    schema: { type: "string", pattern: "^[ -~]{1,255}$" },
  },
};

/** The customer module's part of the OpenAPI document: its paths, scopes and tag. */
export const CUSTOMER_API: ApiDescription = {
  components: {
    schemas: CUSTOMER_SCHEMAS,
    parameters: { ...CUSTOMER_PARAMETERS, ...SEARCH_PARAMETERS },
  },
  tags: [{ name: "customers", description: "The customer resource (contract §3, §4)." }],
  scopes: {
    [READ_SCOPE]: "allows GET and HEAD",
    [WRITE_SCOPE]: "allows POST, PUT, PATCH and DELETE",
  },
  paths: {
    "/api/customers": {
      ...withHead(operation({
        operationId: "listCustomers",
        summary: "List customers",
        description: "Pages through live customers, in ascending id order unless `sort` says " +
          "otherwise, all of them or those a `query` (or `q`, `email`) matches. Unknown or " +
          "repeated query parameters answer 400; send the same filters with `cursor` (the " +
          "`Link` header does).",
        tag: "customers",
        scope: READ_SCOPE,
        parameters: ["limit", "cursor", "query", "sort", "email", "q", "Min-Log-Seq"].map(param),
        ok: {
          "200": {
            description: "One page of customers.",
            headers: headersOf(["Link"]),
            content: json("ListPage"),
          },
        },
        problems: ["bad-request", "invalid-query"],
      })),
      post: operation({
        operationId: "createCustomer",
        summary: "Create a customer",
        description: "Creates a customer. With an `Idempotency-Key`, a repeat with the same " +
          "body within 24 h answers the first response again with `Idempotent-Replayed: " +
          "true`; the same key with another body answers 422, and while the first request is " +
          "in flight 409.",
        tag: "customers",
        scope: WRITE_SCOPE,
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
          "write-contended",
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
        scope: READ_SCOPE,
        parameters: [param("If-None-Match"), param("Min-Log-Seq")],
        ok: {
          ...customerOk("The customer."),
          "304": { description: "Not modified.", headers: headersOf(["ETag"]) },
        },
        problems: ["bad-request", "not-found"],
      })),
      put: operation({
        operationId: "replaceCustomer",
        summary: "Replace a customer",
        description: "Replaces every mutable field: an optional field left out becomes " +
          "`null` (`{}` for metadata).",
        tag: "customers",
        scope: WRITE_SCOPE,
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
        scope: WRITE_SCOPE,
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
        scope: WRITE_SCOPE,
        parameters: [param("If-Match")],
        ok: { "204": { description: "Deleted." } },
        problems: ["not-found", "precondition-failed", ...WRITE_PROBLEMS, "write-contended"],
      }),
    },
  },
};
