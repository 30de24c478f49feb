import type { Customer } from "./customer.ts";

/** A customer came into being. */
export interface CustomerCreated {
  type: "customer.created";
  id: string;
  version: number;
  time: string;
  data: Customer;
}

/** A customer was replaced or patched; data is the whole customer afterwards. */
export interface CustomerUpdated {
  type: "customer.updated";
  id: string;
  version: number;
  time: string;
  data: Customer;
}

/** A customer was deleted; the event carries no personal data. */
export interface CustomerDeleted {
  type: "customer.deleted";
  id: string;
  version: number;
  time: string;
  data: null;
}

/** Everything that can happen to a customer, in the past tense. */
export type CustomerEvent = CustomerCreated | CustomerUpdated | CustomerDeleted;

/** The event types, for checking a log record. */
export const EVENT_TYPES: ReadonlySet<string> = new Set([
  "customer.created",
  "customer.updated",
  "customer.deleted",
]);

/** The state of one customer after an event: evolve(state, event) → state. */
export function evolve(_state: Customer | undefined, event: CustomerEvent): Customer | undefined {
  return event.type === "customer.deleted" ? undefined : event.data;
}
