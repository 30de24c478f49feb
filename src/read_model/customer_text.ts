import type { Customer } from "../domain/customer.ts";

/** A text made by keptCustomerText, for the one later customerText call of the same object. */
interface Kept {
  customer: Customer;
  text: string;
}

/**
 * Texts kept for a second use, by customer id: a write makes its customer's text for the log, and
 * its answer asks for the same object's text again. The second call takes the text (so only
 * writes in flight are kept); a text never asked for again goes when the map is cleared. A
 * WeakMap of every text made (as before) cost more per write, and the collector's ephemeron work.
 */
const kept = new Map<string, Kept>();
/** More kept texts than writes in flight: some were never asked for again (a failed write). */
const KEPT_MAX = 4096;

/**
 * A customer's canonical JSON text (what GET answers, the log and a snapshot store), whatever the
 * order of the object's own keys; made once for an object keptCustomerText made it for.
 */
export function customerText(customer: Customer): string {
  const found = kept.get(customer.id);
  if (found !== undefined && found.customer === customer) {
    kept.delete(customer.id);
    return found.text;
  }
  return JSON.stringify(inCanonicalOrder(customer));
}

/**
 * The canonical text of a customer decide made, kept for the next customerText call of the same
 * object (a customer object is never changed, so its text never goes stale): for a writer whose
 * answer needs it too. decide builds a customer's members in the canonical order (and its address
 * from the rules' own literal), so the text is made without inCanonicalOrder's copy;
 * tests/read_model/customer_text_test.ts checks that of every kind of write.
 */
export function keptCustomerText(customer: Customer): string {
  const text = JSON.stringify(customer);
  if (kept.size >= KEPT_MAX) kept.clear();
  kept.set(customer.id, { customer, text });
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
