import { type Address, ADDRESS_FIELDS, type CustomerInput, READ_ONLY_FIELDS } from "./customer.ts";
import { COUNTRY_CODES } from "./country_codes.ts";
import { ValidationError, type Violation } from "./errors.ts";

/** The limits of contract §3, in one place so the OpenAPI document can quote them. */
export const LIMITS = {
  nameMax: 200,
  emailMax: 254,
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
const E164 = /^\+[0-9]{2,15}$/;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * Checks a request body against every rule of contract §3 and returns the normalised input.
 * Throws one ValidationError listing every violation found.
 */
export function parseCustomerInput(body: unknown): CustomerInput {
  if (!isPlainObject(body)) {
    throw new ValidationError([{ pointer: "", detail: "must be a JSON object" }]);
  }
  const violations: Violation[] = [];
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) {
      violations.push({ pointer: pointer(key), detail: "is not a known field" });
    }
  }
  const name = parseName(body.name, violations);
  const email = parseEmail(body.email, violations);
  const phone = parsePhone(body.phone, violations);
  const address = parseAddress(body.address, violations);
  const metadata = parseMetadata(body.metadata, violations);
  if (violations.length > 0) throw new ValidationError(violations);
  return { name: name!, email: email!, phone, address, metadata };
}

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when the string is a plausible email address (ASCII dot-atom local part, DNS domain). */
export function isValidEmail(email: string): boolean {
  if (email.length > LIMITS.emailMax) return false;
  const at = email.lastIndexOf("@");
  if (at <= 0 || at > 64) return false;
  if (!EMAIL_LOCAL.test(email.slice(0, at))) return false;
  const labels = email.slice(at + 1).split(".");
  if (labels.length < 2 || email.length - at - 1 > 253) return false;
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return false;
  return /^[A-Za-z]{2,63}$|^xn--[A-Za-z0-9-]+$/.test(labels[labels.length - 1]);
}

function parseName(value: unknown, violations: Violation[]): string | undefined {
  if (value === undefined || value === null) {
    violations.push({ pointer: "/name", detail: "is required" });
    return undefined;
  }
  if (typeof value !== "string") {
    violations.push({ pointer: "/name", detail: "must be a string" });
    return undefined;
  }
  const name = value.trim();
  const length = codePoints(name);
  if (length < 1 || length > LIMITS.nameMax) {
    violations.push({
      pointer: "/name",
      detail: `must be 1 to ${LIMITS.nameMax} characters after trimming`,
    });
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
  if (typeof value !== "string" || !E164.test(value)) {
    violations.push({
      pointer: "/phone",
      detail: "must be null or an E.164 number: + then 2 to 15 digits",
    });
    return null;
  }
  return value;
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
    const at = `/address/${field}`;
    if (typeof fieldValue !== "string") {
      violations.push({ pointer: at, detail: "must be null or a string" });
    } else if (field === "country") {
      if (COUNTRY_CODES.has(fieldValue)) address.country = fieldValue;
      else {violations.push({
          pointer: at,
          detail: "must be an ISO 3166-1 alpha-2 code in upper case",
        });}
    } else if (codePoints(fieldValue) > LIMITS.addressFieldMax) {
      violations.push({
        pointer: at,
        detail: `must be at most ${LIMITS.addressFieldMax} characters`,
      });
    } else {
      address[field] = fieldValue;
    }
  }
  return address;
}

function parseMetadata(value: unknown, violations: Violation[]): Record<string, string> {
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
  const entries: [string, string][] = [];
  for (const key of keys) {
    const at = `/metadata${pointer(key)}`;
    const length = codePoints(key);
    if (length < 1 || length > LIMITS.metadataKeyMax) {
      violations.push({
        pointer: at,
        detail: `key must be 1 to ${LIMITS.metadataKeyMax} characters`,
      });
    }
    const entry = value[key];
    if (typeof entry !== "string") {
      violations.push({ pointer: at, detail: "must be a string" });
    } else if (codePoints(entry) > LIMITS.metadataValueMax) {
      violations.push({
        pointer: at,
        detail: `must be at most ${LIMITS.metadataValueMax} characters`,
      });
    } else {
      entries.push([key, entry]);
    }
  }
  // fromEntries defines own properties, so a "__proto__" key stays plain data.
  return Object.fromEntries(entries);
}

/** Encodes one object key as a JSON pointer segment (RFC 6901). */
function pointer(key: string): string {
  return "/" + key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}
