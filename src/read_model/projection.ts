import { type Customer, emailKey } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import { customerFacts } from "./customer_facts.ts";
import { nameOrEmailMatcher } from "./customer_search.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A string with the same text that shares no memory with the one given. */
function ownCopy(text: string): string {
  return decoder.decode(encoder.encode(text));
}

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

/**
 * A live customer as the read model keeps it: its JSON text (what GET answers and a snapshot
 * stores) and what the indexes need. Keeping text instead of an object graph halves the memory
 * per customer and spares the garbage collector; decisions parse the text when they need it.
 */
export interface CustomerRecord {
  readonly id: string;
  readonly version: number;
  /** The lower-cased email, the key of the email index. */
  readonly emailKey: string;
  /** The customer's JSON text: canonical (customer_text.ts) when committed, the log's when replayed. */
  readonly json: string;
}

/** One page of customers, and whether more match after it. */
export interface ListPage {
  items: CustomerRecord[];
  more: boolean;
}

/** The in-memory read model: live customers by id, by email, and in id order. */
export class CustomerProjection implements CustomerState {
  #byId = new Map<string, CustomerRecord>();
  #byEmail = new Map<string, string>();
  /**
   * Ids in ascending order; ULIDs are created in order, so inserts append. A delete leaves its id
   * behind (a tombstone: not in #byId) until tombstones are a quarter of the array, so a delete
   * costs O(1) amortised instead of an O(n) splice.
   */
  #ids: string[] = [];
  #tombstones = 0;
  #changes = 0;

  /** The number of live customers. */
  get size(): number {
    return this.#byId.size;
  }

  /** Counts every change to the model: what a page answered before a change differs from. */
  get changes(): number {
    return this.#changes;
  }

  /** The live customer with this id, parsed from its record. */
  get(id: string): Customer | undefined {
    const record = this.#byId.get(id);
    return record === undefined ? undefined : JSON.parse(record.json);
  }

  /** The record of the live customer with this id. */
  record(id: string): CustomerRecord | undefined {
    return this.#byId.get(id);
  }

  /** The id of the live customer with this email key. */
  emailOwner(key: string): string | undefined {
    return this.#byEmail.get(key);
  }

  /**
   * Folds one durable event into the model: the customer's JSON text after it (canonical when
   * just committed, the log's own text when replayed), or null for a delete.
   */
  apply(id: string, version: number, json: string | null): void {
    if (json === null) this.remove(id);
    else this.put(id, version, customerFacts(json).email, json);
  }

  /** Removes a customer, if live. */
  remove(id: string): void {
    const before = this.#byId.get(id);
    if (before === undefined) return;
    this.#changes++;
    this.#byEmail.delete(before.emailKey);
    this.#bury(id);
  }

  /** Sets a live customer from its JSON text (a snapshot's customer line, say). */
  put(id: string, version: number, email: string, json: string): void {
    const before = this.#byId.get(id);
    const key = emailKey(email);
    this.#changes++;
    if (before?.emailKey !== key) {
      if (before !== undefined) this.#byEmail.delete(before.emailKey);
      this.#byEmail.set(key, id);
    }
    this.#byId.set(id, { id, version, emailKey: key, json });
    if (before === undefined) this.#insertId(id);
  }

  /** Every live customer's record in id order (a new array; records are immutable values). */
  all(): CustomerRecord[] {
    const live: CustomerRecord[] = [];
    for (const id of this.#ids) {
      const record = this.#byId.get(id);
      if (record !== undefined) live.push(record);
    }
    return live;
  }

  /**
   * Gives `count` live records from position `from` (in id order) JSON texts of their own, and
   * returns the position to go on from, or -1 at the end. A replayed text is a slice of the 1 MiB
   * chunk the log was read in: it keeps the whole chunk alive, and Deno sends such a body slower
   * (a GET cost about a fifth more CPU). Records are replaced, not changed.
   */
  ownTexts(from: number, count: number): number {
    const end = Math.min(from + count, this.#ids.length);
    for (let i = from; i < end; i++) {
      const record = this.#byId.get(this.#ids[i]);
      if (record !== undefined) {
        this.#byId.set(record.id, { ...record, json: ownCopy(record.json) });
      }
    }
    return end < this.#ids.length ? end : -1;
  }

  /** A page of live customers in id order. */
  list(query: ListQuery): ListPage {
    const matches = nameOrEmailMatcher(query.q);
    if (query.email !== undefined) {
      const id = this.#byEmail.get(emailKey(query.email));
      const record = id === undefined ? undefined : this.#byId.get(id);
      const hit = record !== undefined && (query.after === undefined || id! > query.after) &&
        matches(record);
      return { items: hit ? [record] : [], more: false };
    }
    const items: CustomerRecord[] = [];
    let i = query.after === undefined ? 0 : this.#indexAfter(query.after);
    for (; i < this.#ids.length; i++) {
      const record = this.#byId.get(this.#ids[i]);
      if (record === undefined || !matches(record)) continue;
      if (items.length === query.limit) return { items, more: true };
      items.push(record);
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
