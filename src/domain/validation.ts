import { type Address, ADDRESS_FIELDS, type CustomerInput, READ_ONLY_FIELDS } from "./customer.ts";
import { COUNTRY_CODES } from "./country_codes.ts";
import { EMAIL_MAX, isValidEmail } from "./email_address.ts";
import { ValidationError, type Violation } from "./errors.ts";
import { hasControlChar, hasLoneSurrogate, hasVisibleChar, longerThan } from "./text_rules.ts";

/** The limits of contract §3, in one place so the OpenAPI document can quote them. */
export const LIMITS = {
  nameMax: 200,
  emailMax: EMAIL_MAX,
  addressFieldMax: 200,
  metadataKeysMax: 50,
  metadataKeyMax: 40,
  metadataValueMax: 500,
} as const;

const KNOWN_FIELDS = new Set([
  "name",
  "email",
  "phone",
  "address",
  "metadata",
  ...READ_ONLY_FIELDS,
]);
const ADDRESS_FIELD_SET: ReadonlySet<string> = new Set(ADDRESS_FIELDS);
const LONE_SURROGATE = "must not contain a lone surrogate (an unpaired \\ud800-\\udfff escape)";
const CONTROL = "must not contain control characters (U+0000-U+001F, U+007F-U+009F)";

/** Checks a body against every rule of contract §3; throws one ValidationError listing them all. */
export function parseCustomerInput(body: unknown): CustomerInput {
  if (!isPlainObject(body)) {
    throw new ValidationError([{ pointer: "", detail: "must be a JSON object" }]);
  }
  const violations: Violation[] = [];
  unknownFields(body, violations);
  const name = parseName(body.name, violations);
  const email = parseEmail(body.email, violations);
  const phone = parsePhone(body.phone, violations);
  const address = parseAddress(body.address, violations);
  const metadata = parseMetadata(body.metadata, violations, false);
  if (violations.length > 0) throw new ValidationError(violations);
  return { name: name!, email: email!, phone, address, metadata };
}

/** What is wrong with a merge patch's fields; `null` may remove any but `name` and `email`. */
export function mergePatchViolations(patch: Record<string, unknown>): Violation[] {
  const violations: Violation[] = [];
  unknownFields(patch, violations);
  const has = (field: string) => Object.hasOwn(patch, field);
  if (has("name")) parseName(patch.name, violations);
  if (has("email")) parseEmail(patch.email, violations);
  if (has("phone")) parsePhone(patch.phone, violations);
  if (has("address")) parseAddress(patch.address, violations);
  if (has("metadata")) parseMetadata(patch.metadata, violations, true);
  return violations;
}

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownFields(body: Record<string, unknown>, violations: Violation[]): void {
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) {
      violations.push({ pointer: pointer(key), detail: "is not a known field" });
    }
  }
}

function parseName(value: unknown, violations: Violation[]): string | undefined {
  const fail = (detail: string) => violations.push({ pointer: "/name", detail });
  if (value === undefined || value === null || typeof value !== "string") {
    fail(value === undefined || value === null ? "is required" : "must be a string");
    return undefined;
  }
  // Trimming strips white space (tab and line breaks too); no control may stay inside.
  const name = value.trim();
  if (hasLoneSurrogate(value)) fail(LONE_SURROGATE);
  else if (hasControlChar(name)) fail(CONTROL);
  else if (name.length === 0 || longerThan(name, LIMITS.nameMax)) {
    fail(`must be 1 to ${LIMITS.nameMax} characters after trimming`);
  } else if (!hasVisibleChar(name)) {
    fail("must contain a visible character, not only spaces or format characters");
  }
  return name;
}

function parseEmail(value: unknown, violations: Violation[]): string | undefined {
  if (value === undefined || value === null) {
    violations.push({ pointer: "/email", detail: "is required" });
  } else if (typeof value !== "string") {
    violations.push({ pointer: "/email", detail: "must be a string" });
  } else if (value.length > LIMITS.emailMax) {
    violations.push({ pointer: "/email", detail: `must be at most ${LIMITS.emailMax} characters` });
  } else if (!isValidEmail(value)) {
    violations.push({ pointer: "/email", detail: "must be a valid email address" });
  } else {
    return value;
  }
  return undefined;
}

function parsePhone(value: unknown, violations: Violation[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !isE164(value)) {
    violations.push({
      pointer: "/phone",
      detail: "must be null or an E.164 number: + then 2 to 15 digits",
    });
    return null;
  }
  return value;
}

/** True for `+` then 2 to 15 ASCII digits (E.164, contract §3); a scan beats a regex. */
export function isE164(value: string): boolean {
  if (value.length < 3 || value.length > 16 || value.charCodeAt(0) !== 0x2b) return false;
  for (let i = 1; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

function parseAddress(value: unknown, violations: Violation[]): Address | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    violations.push({ pointer: "/address", detail: "must be null or an object" });
    return null;
  }
  for (const key of Object.keys(value)) {
    if (!ADDRESS_FIELD_SET.has(key)) {
      violations.push({ pointer: `/address${pointer(key)}`, detail: "is not a known field" });
    }
  }
  const address: Address = {
    line1: null,
    line2: null,
    city: null,
    region: null,
    postal_code: null,
    country: null,
  };
  for (const field of ADDRESS_FIELDS) {
    const fieldValue = value[field];
    if (fieldValue === undefined || fieldValue === null) continue;
    const problem = addressProblem(field, fieldValue);
    if (problem === undefined) address[field] = fieldValue as string;
    else violations.push({ pointer: `/address/${field}`, detail: problem });
  }
  return address;
}

/** What is wrong with one address field's value (not null), or undefined. */
function addressProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== "string") return "must be null or a string";
  if (field === "country") {
    return COUNTRY_CODES.has(value)
      ? undefined
      : "must be an ISO 3166-1 alpha-2 code in upper case";
  }
  if (hasLoneSurrogate(value)) return LONE_SURROGATE;
  if (hasControlChar(value)) return CONTROL;
  if (longerThan(value, LIMITS.addressFieldMax)) {
    return `must be at most ${LIMITS.addressFieldMax} characters`;
  }
  return undefined;
}

/** Metadata of a body; in a merge patch (`patch`), a `null` value removes its key. */
function parseMetadata(
  value: unknown,
  violations: Violation[],
  patch: boolean,
): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    violations.push({ pointer: "/metadata", detail: "must be an object of string values" });
    return {};
  }
  const keys = Object.keys(value);
  if (keys.length > LIMITS.metadataKeysMax) {
    violations.push({
      pointer: "/metadata",
      detail: `must have at most ${LIMITS.metadataKeysMax} keys`,
    });
  }
  const metadata: Record<string, string> = {};
  for (const key of keys) {
    if (hasLoneSurrogate(key)) metadataViolation(violations, key, `key ${LONE_SURROGATE}`);
    else if (key.length === 0 || longerThan(key, LIMITS.metadataKeyMax)) {
      metadataViolation(violations, key, `key must be 1 to ${LIMITS.metadataKeyMax} characters`);
    }
    const entry = value[key];
    if (entry === null && patch) continue;
    if (typeof entry !== "string") {
      metadataViolation(violations, key, patch ? "must be a string or null" : "must be a string");
    } else if (hasLoneSurrogate(entry)) metadataViolation(violations, key, LONE_SURROGATE);
    else if (longerThan(entry, LIMITS.metadataValueMax)) {
      metadataViolation(violations, key, `must be at most ${LIMITS.metadataValueMax} characters`);
    } else if (key === "__proto__") {
      // Defined, not assigned: an assignment would set the object's prototype instead.
      Object.defineProperty(metadata, key, {
        value: entry,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      metadata[key] = entry;
    }
  }
  return metadata;
}

function metadataViolation(violations: Violation[], key: string, detail: string): void {
  violations.push({ pointer: `/metadata${pointer(key)}`, detail });
}

/** Encodes one object key as a JSON pointer segment (RFC 6901). */
function pointer(key: string): string {
  return "/" + key.replaceAll("~", "~0").replaceAll("/", "~1");
}
