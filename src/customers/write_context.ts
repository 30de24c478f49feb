import type { Customer } from "../domain/customer.ts";

/** Who is writing, for the event's metadata. */
export interface WriteContext {
  actor: string;
  requestId: string;
}

/** What a write committed, for its answer. */
export interface Committed<C extends Customer | undefined = Customer> {
  /** The customer after the write (undefined after a delete). */
  customer: C;
  /** The seq of the write's own event, or the applied seq when it wrote none (its Log-Seq). */
  seq: number;
  /** The customer's canonical text, made once with the log line; undefined when none was written. */
  text: string | undefined;
  /** True when an idempotent create answers its first result again. */
  replayed?: boolean;
}
