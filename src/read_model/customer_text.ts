import { ADDRESS_FIELDS, type Customer } from "../domain/customer.ts";

/**
 * The order of a customer's fields in its canonical JSON text: the one place it is stated.
 * customer_facts.ts reads id and email at the start and version at the end without parsing, so
 * id, name and email stay first and version last (tests/read_model/customer_facts_test.ts fails
 * otherwise). Address members follow ADDRESS_FIELDS; metadata keeps its own order.
 */
export const CUSTOMER_FIELDS = [
  "id",
  "name",
  "email",
  "phone",
  "address",
  "metadata",
  "created_at",
  "updated_at",
  "version",
] as const satisfies readonly (keyof Customer)[];

/** Texts already made: a customer object is never changed, so its text never goes stale. */
const made = new WeakMap<Customer, string>();

/**
 * A customer's canonical JSON text (what GET answers, the log and a snapshot store), made at most
 * once per customer object, whatever the order of the object's own keys.
 */
export function customerText(customer: Customer): string {
  let text = made.get(customer);
  if (text === undefined) made.set(customer, text = JSON.stringify(inCanonicalOrder(customer)));
  return text;
}

function inCanonicalOrder(customer: Customer): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const field of CUSTOMER_FIELDS) ordered[field] = customer[field];
  const address = customer.address;
  if (address !== null) {
    const members: Record<string, unknown> = {};
    for (const field of ADDRESS_FIELDS) members[field] = address[field];
    ordered.address = members;
  }
  return ordered;
}
