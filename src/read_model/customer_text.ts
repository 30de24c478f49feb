import type { Customer } from "../domain/customer.ts";

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

/**
 * The one statement of the canonical field order. customer_facts.ts reads id and email at the
 * start and version at the end without parsing, so id, name and email stay first and version last
 * (tests/read_model/customer_facts_test.ts fails otherwise). Address members come in the order of
 * ADDRESS_FIELDS; metadata keeps its own order. A literal, so the engine builds one shape fast.
 */
function inCanonicalOrder(customer: Customer): Customer {
  const address = customer.address;
  return {
    id: customer.id,
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    address: address === null ? null : {
      line1: address.line1,
      line2: address.line2,
      city: address.city,
      region: address.region,
      postal_code: address.postal_code,
      country: address.country,
    },
    metadata: customer.metadata,
    created_at: customer.created_at,
    updated_at: customer.updated_at,
    version: customer.version,
  };
}
