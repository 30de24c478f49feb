/** Test fixtures of the contract's own examples, written once. */
import type { Customer } from "../../src/domain/customer.ts";
import { CUSTOMER_SCHEMAS } from "../../src/customers/customer_schemas.ts";

/**
 * The contract's example customer (§3), as the API answers it and the OpenAPI document shows it
 * (the schema's example is the one copy); `overrides` replace fields.
 */
export function exampleCustomer(overrides: Partial<Customer> = {}): Customer {
  const [example] = CUSTOMER_SCHEMAS.Customer.examples as Customer[];
  return { ...structuredClone(example), ...overrides };
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
