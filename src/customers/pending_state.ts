import { type Customer, emailKey } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import type { CustomerEvent } from "../domain/events.ts";
import { fnv1a30 } from "../lib/fnv_hash.ts";

/** A value held under a key by `count` events in flight; `next` chains keys of one hash. */
interface Held<T> {
  key: string;
  hash: number;
  value: T;
  count: number;
  next: Held<T> | undefined;
  /** Resolved when the last event holding the key is released; made only when someone waits. */
  idle?: PromiseWithResolvers<void>;
}

/**
 * The write model: the durable read model plus changes decided but not yet durable. Decisions see
 * pending changes (two concurrent creates cannot take one email); readers see only the durable.
 * Entries are keyed by a 30-bit hash, chained per hash: each write's keys are new strings, which
 * the engine inserts far slower as map keys than small integers (`deno task bench --only=http`).
 */
export class PendingState implements CustomerState {
  #base: CustomerState;
  #customers = new Map<number, Held<Customer | undefined>>();
  #emails = new Map<number, Held<string>>();

  constructor(base: CustomerState) {
    this.#base = base;
  }

  /** The customer as the newest decided change leaves it. */
  get(id: string): Customer | undefined {
    const held = find(this.#customers, id, keyHash(id));
    return held === undefined ? this.#base.get(id) : held.value;
  }

  /** The owner of an email key, counting emails claimed by pending changes. */
  emailOwner(key: string): string | undefined {
    return find(this.#emails, key, keyHash(key))?.value ?? this.#base.emailOwner(key);
  }

  /**
   * Resolves once no change of this customer is in flight (undefined when none is): one decided on
   * top of another in flight would carry its data even when a shared store refuses that one.
   */
  settled(id: string): Promise<void> | undefined {
    const held = find(this.#customers, id, keyHash(id));
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

/** The hash a key's entry is found by (FNV-1a to 30 bits). */
export function keyHash(key: string): number {
  return fnv1a30(key);
}

function find<T>(map: Map<number, Held<T>>, key: string, hash: number): Held<T> | undefined {
  let held = map.get(hash);
  while (held !== undefined && held.key !== key) held = held.next;
  return held;
}

function hold<T>(map: Map<number, Held<T>>, key: string, value: T): Held<T> {
  const hash = keyHash(key);
  const first = map.get(hash);
  for (let held = first; held !== undefined; held = held.next) {
    if (held.key === key) {
      held.value = value;
      held.count++;
      return held;
    }
  }
  const held: Held<T> = { key, hash, value, count: 1, next: first };
  map.set(hash, held);
  return held;
}

function release<T>(map: Map<number, Held<T>>, held: Held<T>): void {
  if (--held.count > 0) return;
  held.idle?.resolve();
  const first = map.get(held.hash)!;
  if (first === held) {
    if (held.next === undefined) map.delete(held.hash);
    else map.set(held.hash, held.next);
    return;
  }
  let before = first;
  while (before.next !== held) before = before.next!;
  before.next = held.next;
}
