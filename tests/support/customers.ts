/** Test fixtures of the contract's own examples, written once. */
import type { Customer } from "../../src/domain/customer.ts";

/** The contract's example customer (§3), as the API answers it; `overrides` replace fields. */
export function exampleCustomer(overrides: Partial<Customer> = {}): Customer {
  return {
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
    ...overrides,
  };
}

/** A public event's members, in the order the feed, history and webhooks write them (§8). */
export const PUBLIC_EVENT_FIELDS = [
  "seq",
  "type",
  "time",
  "customer_id",
  "version",
  "actor",
  "request_id",
  "data",
] as const;
