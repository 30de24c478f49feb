import { type Customer, emailKey } from "./domain/customer.ts";
import type { CustomerState } from "./domain/decide.ts";
import { type CustomerEvent, evolve } from "./domain/events.ts";

/** What a page of the list asks for. */
export interface ListQuery {
  /** Only ids greater than this one. */
  after?: string;
  limit: number;
  /** Exact email, compared case-insensitively. */
  email?: string;
  /** Case-insensitive substring of name or email. */
  q?: string;
}

/** One page of customers, and whether more match after it. */
export interface ListPage {
  items: Customer[];
  more: boolean;
}

/** The in-memory read model: live customers by id, by email, and in id order. */
export class CustomerProjection implements CustomerState {
  #byId = new Map<string, Customer>();
  #byEmail = new Map<string, string>();
  /**
   * Ids in ascending order; ULIDs are created in order, so inserts append. A delete leaves its id
   * behind (a tombstone: not in #byId) until tombstones are a quarter of the array, so a delete
   * costs O(1) amortised instead of an O(n) splice.
   */
  #ids: string[] = [];
  #tombstones = 0;

  /** The number of live customers. */
  get size(): number {
    return this.#byId.size;
  }

  /** The live customer with this id. */
  get(id: string): Customer | undefined {
    return this.#byId.get(id);
  }

  /** The id of the live customer with this email key. */
  emailOwner(key: string): string | undefined {
    return this.#byEmail.get(key);
  }

  /** Folds one durable event into the model. */
  apply(event: CustomerEvent): void {
    const before = this.#byId.get(event.id);
    const after = evolve(before, event);
    if (before !== undefined) this.#byEmail.delete(emailKey(before.email));
    if (after === undefined) {
      if (before !== undefined) this.#bury(event.id);
      return;
    }
    this.#byId.set(event.id, after);
    this.#byEmail.set(emailKey(after.email), event.id);
    if (before === undefined) this.#insertId(event.id);
  }

  /** Every live customer in id order (a new array; the customers are immutable values). */
  all(): Customer[] {
    const live: Customer[] = [];
    for (const id of this.#ids) {
      const customer = this.#byId.get(id);
      if (customer !== undefined) live.push(customer);
    }
    return live;
  }

  /** A page of live customers in id order. */
  list(query: ListQuery): ListPage {
    const needle = query.q?.toLowerCase();
    if (query.email !== undefined) {
      const id = this.#byEmail.get(emailKey(query.email));
      const customer = id === undefined ? undefined : this.#byId.get(id);
      const hit = customer !== undefined && (query.after === undefined || id! > query.after) &&
        matches(customer, needle);
      return { items: hit ? [customer] : [], more: false };
    }
    const items: Customer[] = [];
    let i = query.after === undefined ? 0 : this.#indexAfter(query.after);
    for (; i < this.#ids.length; i++) {
      const customer = this.#byId.get(this.#ids[i]);
      if (customer === undefined || !matches(customer, needle)) continue;
      if (items.length === query.limit) return { items, more: true };
      items.push(customer);
    }
    return { items, more: false };
  }

  /** The position of the first id greater than the given one. */
  #indexAfter(id: string): number {
    let low = 0;
    let high = this.#ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#ids[mid] <= id) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  #insertId(id: string): void {
    const ids = this.#ids;
    if (ids.length === 0 || ids[ids.length - 1] < id) ids.push(id);
    else {
      const at = this.#indexAfter(id);
      if (ids[at - 1] === id) this.#tombstones--; // its own tombstone comes back to life
      else ids.splice(at, 0, id);
    }
  }

  #bury(id: string): void {
    this.#byId.delete(id);
    this.#tombstones++;
    if (this.#tombstones > 1024 && this.#tombstones * 4 > this.#ids.length) {
      this.#ids = this.#ids.filter((live) => this.#byId.has(live));
      this.#tombstones = 0;
    }
  }
}

function matches(customer: Customer, needle: string | undefined): boolean {
  if (needle === undefined) return true;
  return customer.name.toLowerCase().includes(needle) ||
    customer.email.toLowerCase().includes(needle);
}
