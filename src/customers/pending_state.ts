import { type Customer, emailKey } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import type { CustomerEvent } from "../domain/events.ts";

interface Held<T> {
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

  /** Holds a decided event until release; an email it frees stays taken until it is durable. */
  hold(event: CustomerEvent): void {
    hold(this.#customers, event.id, event.data ?? undefined);
    if (event.data !== null) hold(this.#emails, emailKey(event.data.email), event.id);
  }

  /** Releases an event held earlier, once it is durable (and applied to the base) or has failed. */
  release(event: CustomerEvent): void {
    release(this.#customers, event.id);
    if (event.data !== null) release(this.#emails, emailKey(event.data.email));
  }
}

function hold<T>(map: Map<string, Held<T>>, key: string, value: T): void {
  const held = map.get(key);
  if (held === undefined) map.set(key, { value, count: 1 });
  else {
    held.value = value;
    held.count++;
  }
}

function release<T>(map: Map<string, Held<T>>, key: string): void {
  const held = map.get(key)!;
  if (--held.count === 0) map.delete(key);
}
