/**
 * Checks responses against the OpenAPI document: the status is listed for the operation, the
 * content type is one it names, the body fits its schema and the required headers are there.
 * `recordContract` collects violations; the afterEach hook below fails the test that got them.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { API_DOCUMENT } from "./api_document.ts";
import { PROBLEM_TYPES } from "../../src/http/problem_types.ts";

/** What the check needs of a response; the body must already be read. */
export interface ReceivedResponse {
  status: number;
  headers: Headers;
  text: string;
}

// deno-lint-ignore no-explicit-any -- the document is walked as untyped JSON
type Json = any;

const DOC: Json = API_DOCUMENT;
const SCHEMA_ID = "urn:customer-api:schemas:";
const FETCH_NORMALISED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats.default(ajv);
for (const [name, schema] of Object.entries(DOC.components.schemas)) {
  ajv.addSchema(withAbsoluteRefs(schema), `${SCHEMA_ID}${name}`);
}
const validators = new WeakMap<object, ValidateFunction>();

const PATHS: { template: string; pattern: RegExp }[] = Object.keys(DOC.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

/** Every way the response breaks the document; empty when it conforms. */
export function contractViolations(
  method: string,
  url: string | URL,
  response: ReceivedResponse,
): string[] {
  // fetch upper-cases these six methods; any other is sent (and routed) exactly as given.
  const sent = FETCH_NORMALISED.has(method.toUpperCase()) ? method.toUpperCase() : method;
  const pathname = new URL(url).pathname;
  const path = PATHS.find(({ pattern }) => pattern.test(pathname));
  const unmatched = DOC["x-unmatched-requests"].responses;
  if (path === undefined) {
    return checkResponse(pick(unmatched, ["404"], response.status), response, false);
  }
  const item = DOC.paths[path.template];
  const operation = sent === sent.toUpperCase() ? item[sent.toLowerCase()] : undefined;
  if (operation === undefined) {
    const allowed = sent === "OPTIONS" ? ["204", "403", "405"] : ["405"];
    const violations = checkResponse(pick(unmatched, allowed, response.status), response, false);
    if (response.status === 405) violations.push(...checkAllow(item, response.headers));
    return violations;
  }
  const documented = operation.responses[String(response.status)] ??
    operation.responses.default;
  if (documented === undefined) {
    const listed = Object.keys(operation.responses).join(", ");
    return [`status ${response.status} is not documented for ${sent} ${path.template} (${listed})`];
  }
  return checkResponse(resolve(documented), response, sent === "HEAD");
}

/** Compiles every schema in the document under strict Ajv; throws on the first bad one. */
export function compileEverySchema(node: Json = DOC, path = "#"): number {
  if (typeof node !== "object" || node === null) return 0;
  let compiled = 0;
  for (const [key, value] of Object.entries(node)) {
    if (key === "schema" && typeof value === "object" && value !== null) {
      schemaViolations(value, null, `${path}/schema`);
      compiled++;
    } else {
      compiled += compileEverySchema(value, `${path}/${key}`);
    }
  }
  return compiled;
}

/** Validates a value against a schema of `components.schemas`; returns what is wrong. */
export function schemaErrors(name: string, value: unknown): string[] {
  return schemaViolations(DOC.components.schemas[name], value, name);
}

const pending: string[] = [];

/** Checks a response and keeps what is wrong for the afterEach hook. */
export function recordContract(method: string, url: string | URL, response: ReceivedResponse) {
  let violations: string[];
  try {
    violations = contractViolations(method, url, response);
  } catch (error) {
    // A document the validator cannot even compile fails the test, but not mid-request.
    violations = [`the check itself failed: ${error}`];
  }
  if (violations.length === 0) return;
  const label = `${method} ${new URL(url).pathname} → ${response.status}`;
  pending.push(...violations.map((violation) => `${label}: ${violation}`));
}

/** Returns and forgets the violations recorded so far. */
export function takeContractViolations(): string[] {
  return pending.splice(0);
}

// The test that received a response breaking the document fails, naming every violation.
Deno.test.afterEach(() => {
  const violations = [...new Set(takeContractViolations())];
  if (violations.length === 0) return;
  const shown = violations.slice(0, 20).map((line) => `  - ${line}`).join("\n");
  const more = violations.length > 20 ? `\n  … and ${violations.length - 20} more` : "";
  throw new Error(
    `The server broke its OpenAPI document (GET /api/openapi.json) in ${violations.length} ` +
      `way(s):\n${shown}${more}`,
  );
});

function pick(responses: Json, allowed: string[], status: number): Json {
  return allowed.includes(String(status)) ? resolve(responses[String(status)]) : {
    unexpected: `status ${status} is not documented for this request (${allowed.join(", ")})`,
  };
}

function checkResponse(documented: Json, response: ReceivedResponse, head: boolean): string[] {
  if (documented.unexpected !== undefined) return [documented.unexpected];
  const violations: string[] = [];
  for (const [name, ref] of Object.entries(documented.headers ?? {})) {
    const header: Json = resolve(ref);
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required === true) violations.push(`required header ${name} is missing`);
      continue;
    }
    const typed = header.schema?.type === "integer" && /^[0-9]+$/.test(value)
      ? Number(value)
      : value;
    violations.push(...schemaViolations(header.schema, typed, `header ${name}`));
  }
  if (head || documented.content === undefined) {
    if (response.text !== "") violations.push(`the body must be empty, got "${excerpt(response)}"`);
    return violations;
  }
  const contentType = response.headers.get("content-type") ?? "";
  const mediaType = contentType.split(";", 1)[0].trim().toLowerCase();
  const media = documented.content[mediaType];
  if (media === undefined) {
    const listed = Object.keys(documented.content).join(", ");
    return [...violations, `Content-Type "${contentType}" is not documented (${listed})`];
  }
  if (/^text\/|^application\/json$/.test(mediaType) && !/;\s*charset=utf-8$/i.test(contentType)) {
    violations.push(`Content-Type "${contentType}" does not say charset=utf-8`);
  }
  if (!/^application\/(.+\+)?json$/.test(mediaType)) return violations;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [...violations, `the body is not JSON: "${excerpt(response)}"`];
  }
  violations.push(...schemaViolations(media.schema, body, "body"));
  if (mediaType === "application/problem+json") violations.push(...problemRowViolations(body));
  return violations;
}

/** Every problem the server sends is a row of its problem table, with that row's status and title. */
function problemRowViolations(body: Json): string[] {
  const row = Object.values(PROBLEM_TYPES).find((type) => type.type === body?.type);
  if (row === undefined) return [`problem type "${body?.type}" is not in the problem table`];
  if (row.status === body.status && row.title === body.title) return [];
  return [
    `problem "${row.slug}" says ${body.status} "${body.title}", its row ${row.status} "${row.title}"`,
  ];
}

function checkAllow(item: Json, headers: Headers): string[] {
  const documented = Object.keys(item).filter((key) => key !== "parameters")
    .map((method) => method.toUpperCase()).sort();
  const allow = (headers.get("allow") ?? "").split(",").map((method) => method.trim()).sort();
  return allow.join(", ") === documented.join(", ")
    ? []
    : [`Allow "${allow.join(", ")}" differs from the documented methods ${documented.join(", ")}`];
}

function schemaViolations(schema: Json, value: unknown, what: string): string[] {
  if (schema === undefined) return [];
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(withAbsoluteRefs(schema));
    validators.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => {
    const extra = error.params.additionalProperty ?? error.params.allowedValues;
    return `${what}${error.instancePath} ${error.message}` +
      (extra === undefined ? "" : ` (${JSON.stringify(extra)})`);
  });
}

function resolve(value: Json): Json {
  let current = value;
  while (typeof current?.$ref === "string") {
    current = current.$ref.slice(2).split("/").reduce(
      (node: Json, key: string) => node[key.replaceAll("~1", "/").replaceAll("~0", "~")],
      DOC,
    );
  }
  return current;
}

/** A copy with `#/components/schemas/X` refs pointing at the schemas registered above. */
function withAbsoluteRefs(value: Json): Json {
  if (Array.isArray(value)) return value.map(withAbsoluteRefs);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === "$ref" && typeof inner === "string"
        ? [key, inner.replace("#/components/schemas/", SCHEMA_ID)]
        : [key, withAbsoluteRefs(inner)]
    ),
  );
}

function excerpt(response: ReceivedResponse): string {
  return response.text.length > 120 ? `${response.text.slice(0, 120)}…` : response.text;
}
