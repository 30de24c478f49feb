import { type Customer, emailKey } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import type { CustomerEvent } from "../domain/events.ts";

/** A value held under a key by `count` events in flight. */
interface Held<T> {
  key: string;
  value: T;
  count: number;
}

/**
 * The write model: the durable read model plus the changes decided but not yet durable.
 * Decisions see pending changes (so two concurrent creates cannot take one email);
 * readers see only the durable model.
 */
export class PendingState implements CustomerState {
  #base: CustomerState;
  #customers = new Map<string, Held<Customer | undefined>>();
  #emails = new Map<string, Held<string>>();

  constructor(base: CustomerState) {
    this.#base = base;
  }

  /** The customer as the newest decided change leaves it. */
  get(id: string): Customer | undefined {
    const held = this.#customers.get(id);
    return held === undefined ? this.#base.get(id) : held.value;
  }

  /** The owner of an email key, counting emails claimed by pending changes. */
  emailOwner(key: string): string | undefined {
    return this.#emails.get(key)?.value ?? this.#base.emailOwner(key);
  }

  /**
   * Holds a decided event until release; an email it frees stays taken until it is durable.
   * Returns what it holds, for release: no lookup and no email key again.
   */
  hold(event: CustomerEvent): Holding {
    const customer = hold(this.#customers, event.id, event.data ?? undefined);
    const email = event.data === null
      ? undefined
      : hold(this.#emails, emailKey(event.data.email), event.id);
    return { customer, email };
  }

  /** Releases what hold held, once the event is durable (and applied to the base) or failed. */
  release(holding: Holding): void {
    release(this.#customers, holding.customer);
    if (holding.email !== undefined) release(this.#emails, holding.email);
  }
}

/** What hold took for one event: its customer's entry and, unless a delete, its email's. */
export interface Holding {
  customer: Held<Customer | undefined>;
  email: Held<string> | undefined;
}

function hold<T>(map: Map<string, Held<T>>, key: string, value: T): Held<T> {
  let held = map.get(key);
  if (held === undefined) map.set(key, held = { key, value, count: 1 });
  else {
    held.value = value;
    held.count++;
  }
  return held;
}

function release<T>(map: Map<string, Held<T>>, held: Held<T>): void {
  if (--held.count === 0) map.delete(held.key);
}
