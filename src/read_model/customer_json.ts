import type { Customer } from "../domain/customer.ts";

/**
 * The q filter: a case-insensitive search of the JSON text finds candidates without allocating;
 * only those are parsed to check the name and email themselves.
 */
export function nameOrEmailMatcher(q: string | undefined): (record: { json: string }) => boolean {
  if (q === undefined) return () => true;
  const needle = q.toLowerCase();
  // JSON escapes some characters; a needle that needs escaping is searched for as JSON would write it.
  const escaped = JSON.stringify(q).slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const candidate = new RegExp(escaped, "i");
  return (record) => {
    if (!candidate.test(record.json)) return false;
    const customer = JSON.parse(record.json) as Customer;
    return customer.name.toLowerCase().includes(needle) ||
      customer.email.toLowerCase().includes(needle);
  };
}

/** The facts the indexes need from a customer's JSON text. */
export interface CustomerFacts {
  id: string;
  email: string;
  version: number;
}

// Customers are serialised with id, name and email first and version last (see decide.ts), so
// anchored patterns read these without parsing; anything else falls back to JSON.parse.
const HEAD = /^\{"id":"([0-9A-Z]{26})","name":"(?:[^"\\]|\\.)*","email":"((?:[^"\\]|\\.)*)"/;
const TAIL = /,"version":([0-9]{1,15})\}$/;

/** The id, email and version of a customer's JSON text, read without building the object. */
export function customerFacts(json: string): CustomerFacts {
  const head = HEAD.exec(json);
  const tail = head === null ? null : TAIL.exec(json);
  if (head === null || tail === null) {
    const customer = JSON.parse(json) as Customer;
    return { id: customer.id, email: customer.email, version: customer.version };
  }
  const email = head[2].includes("\\") ? JSON.parse(`"${head[2]}"`) as string : head[2];
  return { id: head[1], email, version: Number(tail[1]) };
}

/** Serialised customers: a customer object is never changed, so its JSON never goes stale. */
const serialised = new WeakMap<Customer, string>();

/** A customer's JSON text, serialised at most once per customer object. */
export function jsonOf(customer: Customer): string {
  let json = serialised.get(customer);
  if (json === undefined) serialised.set(customer, json = JSON.stringify(customer));
  return json;
}
