import { type Customer, emailKey } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import type { CustomerEvent } from "../domain/events.ts";

/** A value held under a key by `count` events in flight. */
interface Held<T> {
  key: string;
  value: T;
  count: number;
  /** Resolved when the last event holding the key is released; made only when someone waits. */
  idle?: PromiseWithResolvers<void>;
}

/**
 * The write model: the durable read model plus changes decided but not yet durable. Decisions see
 * pending changes (two concurrent creates cannot take one email); readers see only the durable.
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
   * Resolves once no change of this customer is in flight (undefined when none is): one decided on
   * top of another in flight would carry its data even when a shared store refuses that one.
   */
  settled(id: string): Promise<void> | undefined {
    const held = this.#customers.get(id);
    if (held === undefined) return undefined;
    held.idle ??= Promise.withResolvers<void>();
    return held.idle.promise;
  }

  /** Holds a decided event until release (an email it frees stays taken until durable). */
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
  const held = map.get(key);
  if (held !== undefined) {
    held.value = value;
    held.count++;
    return held;
  }
  const fresh: Held<T> = { key, value, count: 1 };
  map.set(key, fresh);
  return fresh;
}

function release<T>(map: Map<string, Held<T>>, held: Held<T>): void {
  if (--held.count > 0) return;
  held.idle?.resolve();
  map.delete(held.key);
}
