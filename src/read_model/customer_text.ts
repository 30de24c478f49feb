import type { Customer } from "../domain/customer.ts";

/**
 * A customer's canonical JSON text (what GET answers, the log and a snapshot store), whatever the
 * order of the object's own keys.
 */
export function customerText(customer: Customer): string {
  return JSON.stringify(inCanonicalOrder(customer));
}

/**
 * The canonical text of a customer decide made, without inCanonicalOrder's copy: decide builds a
 * customer's members in the canonical order (and its address from the rules' own literal);
 * tests/read_model/customer_text_test.ts checks that of every kind of write.
 */
export function decidedCustomerText(customer: Customer): string {
  return JSON.stringify(customer);
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
