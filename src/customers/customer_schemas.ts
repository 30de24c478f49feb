/** The customer resource's schemas in the OpenAPI document, with the validator's rules. */
import { COUNTRY_CODES } from "../domain/country_codes.ts";
import { ADDRESS_FIELDS, READ_ONLY_FIELDS, ULID_PATTERN } from "../domain/customer.ts";
import { CONTROL_CHARS, INVISIBLE_CHARS, SURROGATES, TRIMMED_CHARS } from "../domain/text_rules.ts";
import { LIMITS } from "../domain/validation.ts";

import { nullable, ref, type Schema } from "../openapi/openapi_schemas.ts";

// The validator's rules as ECMA-262 patterns; tests/contract/schema_agreement_test.ts proves
// that these schemas and parseCustomerInput accept and refuse exactly the same bodies.
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const TOP_LABEL = "(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{0,58}[A-Za-z0-9])";
/** An ASCII dot-atom local part, then a DNS domain (its length follows from `maxLength`). */
export const EMAIL_PATTERN = `^${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${TOP_LABEL}$`;
/** A local part of at most 64 characters: a pattern of its own, since tools cannot read lookaheads. */
const EMAIL_LOCAL_MAX_PATTERN = "^[^@]{1,64}@";
/** E.164: a plus sign and 2 to 15 digits. */
export const E164_PATTERN = "^\\+[0-9]{2,15}$";
// The validator's character rules (src/domain/text_rules.ts), quoted as character classes.
const TEXT_CHAR = `[^${CONTROL_CHARS}${SURROGATES}]`;
const KEPT_CHAR = `[^${TRIMMED_CHARS}${CONTROL_CHARS}${SURROGATES}]`;
const TRIMMED = `[${TRIMMED_CHARS}]*`;
/** A name whose trimmed form has 1 to `nameMax` code points and no control character. */
export const NAME_INPUT_PATTERN = `^${TRIMMED}${KEPT_CHAR}(?:${TEXT_CHAR}{0,${
  LIMITS.nameMax - 2
}}${KEPT_CHAR})?${TRIMMED}$`;
/** Somewhere a character that shows something (not only spaces or format characters). */
export const VISIBLE_PATTERN = `[^${INVISIBLE_CHARS}${SURROGATES}]`;
/** No control character and no lone surrogate (address fields). */
const TEXT_PATTERN = `^${TEXT_CHAR}*$`;
/** No lone surrogate (metadata keys and values). */
const WELL_FORMED_PATTERN = `^[^${SURROGATES}]*$`;
const TIMESTAMP_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$";

const email: Schema = {
  type: "string",
  format: "email",
  maxLength: LIMITS.emailMax,
  pattern: EMAIL_PATTERN,
  allOf: [{ pattern: EMAIL_LOCAL_MAX_PATTERN }],
  description: "A valid address, unique among live customers (compared case-insensitively).",
  examples: ["ada@example.com"],
};
const phone: Schema = {
  type: ["string", "null"],
  pattern: E164_PATTERN,
  description: "E.164: `+` then 2 to 15 digits.",
  examples: ["+442079460958"],
};
const name: Schema = {
  type: "string",
  pattern: NAME_INPUT_PATTERN,
  allOf: [{ pattern: VISIBLE_PATTERN }],
  description: `Trimmed; 1 to ${LIMITS.nameMax} characters (code points) after trimming, ` +
    "with no control character (U+0000-U+001F, U+007F-U+009F) and at least one visible one.",
};
const metadataValue: Schema = {
  type: "string",
  maxLength: LIMITS.metadataValueMax,
  pattern: WELL_FORMED_PATTERN,
};
const metadataInput: Schema = {
  type: ["object", "null"],
  maxProperties: LIMITS.metadataKeysMax,
  propertyNames: { minLength: 1, maxLength: LIMITS.metadataKeyMax, pattern: WELL_FORMED_PATTERN },
  additionalProperties: metadataValue,
  description: `String to string, at most ${LIMITS.metadataKeysMax} keys of 1 to ` +
    `${LIMITS.metadataKeyMax} characters, values of at most ${LIMITS.metadataValueMax}; ` +
    "`null` or left out means `{}`.",
};
const readOnlyIgnored = Object.fromEntries(
  READ_ONLY_FIELDS.map((field) => [field, {
    readOnly: true,
    description: "Set by the server; ignored when sent, so a body from GET can be PUT back.",
  }]),
);

const address: Schema = {
  type: "object",
  description: "A postal address; every field is optional and may be `null`. " +
    "Unknown fields are refused.",
  additionalProperties: false,
  properties: Object.fromEntries(ADDRESS_FIELDS.map((field) => [
    field,
    field === "country"
      ? {
        type: ["string", "null"],
        enum: [...[...COUNTRY_CODES].sort(), null],
        description: "An officially assigned ISO 3166-1 alpha-2 code, upper case.",
      }
      : { type: ["string", "null"], maxLength: LIMITS.addressFieldMax, pattern: TEXT_PATTERN },
  ])),
};

const customerInput: Schema = {
  type: "object",
  description: "The body of POST and PUT. Unknown fields are refused (422); on PUT an optional " +
    "field left out becomes `null` (`{}` for metadata).",
  required: ["name", "email"],
  additionalProperties: false,
  properties: {
    name,
    email,
    phone,
    address: nullable(ref("Address")),
    metadata: metadataInput,
    ...readOnlyIgnored,
  },
  examples: [{
    name: "Ada Lovelace",
    email: "ada@example.com",
    phone: "+442079460958",
    address: { line1: "12 St James's Square", city: "London", country: "GB" },
    metadata: { crm_id: "A-1042" },
  }],
};

const customerPatch: Schema = {
  type: "object",
  description: "A JSON Merge Patch (RFC 7396) of the mutable fields, each under the same rules " +
    "as in CustomerInput: `null` removes an optional field or a metadata key (`name` and " +
    "`email` cannot be removed); nested objects are merged. The result must satisfy " +
    "CustomerInput too (for instance at most " + LIMITS.metadataKeysMax + " metadata keys).",
  additionalProperties: false,
  properties: {
    name,
    email,
    phone,
    address: nullable(ref("Address")),
    metadata: {
      ...metadataInput,
      additionalProperties: { ...metadataValue, type: ["string", "null"] },
      description: "Merged key by key: a string sets a key, `null` removes it.",
    },
    ...readOnlyIgnored,
  },
  examples: [{ phone: "+442079460958", address: { line1: "12 St James's Square" } }],
};

const customer: Schema = {
  type: "object",
  description: "A customer as the server stores and returns it.",
  required: [
    "id",
    "name",
    "email",
    "phone",
    "address",
    "metadata",
    "created_at",
    "updated_at",
    "version",
  ],
  additionalProperties: false,
  properties: {
    id: { type: "string", pattern: ULID_PATTERN, description: "A ULID, assigned by the server." },
    name: {
      type: "string",
      minLength: 1,
      maxLength: LIMITS.nameMax,
      pattern: `^${KEPT_CHAR}(?:${TEXT_CHAR}*${KEPT_CHAR})?$`,
      allOf: [{ pattern: VISIBLE_PATTERN }],
    },
    email,
    phone,
    address: nullable({ type: "object", allOf: [ref("Address")], required: [...ADDRESS_FIELDS] }),
    metadata: { ...metadataInput, type: "object" },
    created_at: { type: "string", format: "date-time", pattern: TIMESTAMP_PATTERN },
    updated_at: { type: "string", format: "date-time", pattern: TIMESTAMP_PATTERN },
    version: {
      type: "integer",
      minimum: 1,
      description: 'Starts at 1, +1 on every change; the strong ETag is `"<version>"`.',
    },
  },
  examples: [{
    id: "01JDQ8Z5K3M4N5P6Q7R8S9T0VW",
    name: "Ada Lovelace",
    email: "ada@example.com",
    phone: "+442079460958",
    address: {
      line1: "12 St James's Square",
      line2: null,
      city: "London",
      region: null,
      postal_code: "SW1Y 4JH",
      country: "GB",
    },
    metadata: { crm_id: "A-1042" },
    created_at: "2026-11-21T10:00:00.000Z",
    updated_at: "2026-11-21T10:00:00.000Z",
    version: 1,
  }],
};

const listPage: Schema = {
  type: "object",
  description: "One page of customers in ascending id order.",
  required: ["data", "next_cursor"],
  additionalProperties: false,
  properties: {
    data: { type: "array", items: ref("Customer") },
    next_cursor: {
      type: ["string", "null"],
      description: "Pass as `cursor` for the next page; `null` on the last page.",
    },
  },
};

/** The customer module's `components.schemas`. */
export const CUSTOMER_SCHEMAS: Record<string, Schema> = {
  Customer: customer,
  CustomerInput: customerInput,
  CustomerPatch: customerPatch,
  Address: address,
  ListPage: listPage,
};
