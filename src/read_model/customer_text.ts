import type { Customer } from "../domain/customer.ts";

/** A customer's canonical JSON text, whatever the order of the object's own keys. */
export function customerText(customer: Customer): string {
  return JSON.stringify(inCanonicalOrder(customer));
}

/** The canonical text of a customer decide made, which is already in canonical order (tested). */
export function decidedCustomerText(customer: Customer): string {
  return JSON.stringify(customer);
}

/**
 * The one statement of the canonical field order: id, name and email first and version last, as
 * customer_facts.ts reads them unparsed. A literal, so the engine builds one shape.
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
