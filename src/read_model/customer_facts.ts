import { type Customer, ULID_PATTERN } from "../domain/customer.ts";

/** The facts the indexes need from a customer's JSON text. */
export interface CustomerFacts {
  id: string;
  email: string;
  version: number;
}

// Anchored to the canonical order of customer_text.ts: id, name and email first, version last.
const ULID = ULID_PATTERN.slice(1, -1); // unanchored, to sit inside HEAD
const HEAD = new RegExp(
  String.raw`^\{"id":"(${ULID})","name":"(?:[^"\\]|\\.)*","email":"((?:[^"\\]|\\.)*)"`,
);
const TAIL = /,"version":([0-9]{1,15})\}$/;

/**
 * The id, email and version of a customer's canonical JSON text, read by anchored patterns without
 * building the object; undefined when the text is not in canonical order (or the version has more
 * than 15 digits).
 */
export function canonicalFacts(json: string): CustomerFacts | undefined {
  const head = HEAD.exec(json);
  const tail = head === null ? null : TAIL.exec(json);
  if (head === null || tail === null) return undefined;
  const email = head[2].includes("\\") ? JSON.parse(`"${head[2]}"`) as string : head[2];
  return { id: head[1], email, version: Number(tail[1]) };
}

/**
 * The version of a customer's canonical JSON text (one canonicalFacts accepted), read from its
 * end: the `,"version":N}` TAIL matched there is the text's last `,"version":`.
 */
export function canonicalVersion(json: string): number {
  let version = 0;
  for (let i = json.lastIndexOf(VERSION) + VERSION.length; i < json.length - 1; i++) {
    version = version * 10 + (json.charCodeAt(i) - 48);
  }
  return version;
}

const VERSION = ',"version":';

/** The id, email and version of any customer's JSON text: canonical text is read without parsing. */
export function customerFacts(json: string): CustomerFacts {
  const facts = canonicalFacts(json);
  if (facts !== undefined) return facts;
  const customer = JSON.parse(json) as Customer;
  return { id: customer.id, email: customer.email, version: customer.version };
}
