import { type Customer, ULID_PATTERN } from "../domain/customer.ts";

/** The facts the indexes need from a customer's JSON text. */
export interface CustomerFacts {
  id: string;
  email: string;
  version: number;
}

// Anchored to the canonical order of customer_text.ts: id, name and email first, version last.
const ULID = ULID_PATTERN.slice(1, -1); // unanchored, to sit inside HEAD
const NAME_AND_EMAIL = String.raw`"name":"(?:[^"\\]|\\.)*","email":"((?:[^"\\]|\\.)*)"`;
const HEAD = new RegExp(String.raw`^\{"id":"(${ULID})",${NAME_AND_EMAIL}`);
/** HEAD capturing the email only (the id's capture would be one more string per call). */
const EMAIL = new RegExp(String.raw`^\{"id":"${ULID}",${NAME_AND_EMAIL}`);
const VERSION = ',"version":';

/** The id, email and version of a canonical customer text, read by anchored patterns, unparsed. */
export function canonicalFacts(json: string): CustomerFacts | undefined {
  const head = HEAD.exec(json);
  if (head === null || !hasCanonicalTail(json)) return undefined;
  return { id: head[1], email: unescaped(head[2]), version: canonicalVersion(json) };
}

/** The email of a customer's canonical JSON text; undefined where canonicalFacts is undefined. */
export function canonicalEmail(json: string): string | undefined {
  const head = EMAIL.exec(json);
  return head === null || !hasCanonicalTail(json) ? undefined : unescaped(head[1]);
}

/** True when the text ends with `,"version":N}`, N of 1 to 15 digits. */
function hasCanonicalTail(json: string): boolean {
  const start = json.lastIndexOf(VERSION) + VERSION.length;
  const end = json.length - 1;
  if (start < VERSION.length || end - start < 1 || end - start > 15) return false;
  if (json.charCodeAt(end) !== 0x7d) return false;
  for (let i = start; i < end; i++) {
    const c = json.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function unescaped(email: string): string {
  return email.includes("\\") ? JSON.parse(`"${email}"`) as string : email;
}

/** The version of a canonical customer text, read from its end. */
export function canonicalVersion(json: string): number {
  let version = 0;
  for (let i = json.lastIndexOf(VERSION) + VERSION.length; i < json.length - 1; i++) {
    version = version * 10 + (json.charCodeAt(i) - 48);
  }
  return version;
}

/** The id, email and version of any customer's JSON text: canonical text is read without parsing. */
export function customerFacts(json: string): CustomerFacts {
  const facts = canonicalFacts(json);
  if (facts !== undefined) return facts;
  const customer = JSON.parse(json) as Customer;
  return { id: customer.id, email: customer.email, version: customer.version };
}
