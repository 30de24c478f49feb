import { type Customer, emailKey } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import { canonicalEmail, canonicalVersion, customerFacts } from "./customer_facts.ts";
import { customerText } from "./customer_text.ts";
import { nameOrEmailMatcher } from "./customer_search.ts";
import { EmailIndex } from "./email_index.ts";

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
 * A live customer as GET and the list answer it: its JSON text and the version for the ETag. The
 * read model keeps only the text (see CustomerProjection) and makes this on demand.
 */
export interface CustomerRecord {
  readonly id: string;
  readonly version: number;
  /** The customer's canonical JSON text (customer_text.ts). */
  readonly json: string;
}

/** One page of customers, and whether more match after it. */
export interface ListPage {
  items: CustomerRecord[];
  more: boolean;
}

/**
 * The in-memory read model: live customers by id, by email, and in id order. Each customer is
 * kept as its canonical JSON text alone (what GET answers and a snapshot stores), the value of
 * the id map: its version and email are read from the text when needed (canonical text has them
 * at fixed places, customer_facts.ts), so there is no record object per customer. With a million
 * customers that object was 56 bytes of about 600 per customer, and one allocation per event
 * replayed. Text instead of an object graph halves the memory and spares the garbage collector;
 * decisions parse the text when they need it.
 */
export class CustomerProjection implements CustomerState {
  /** Id → canonical JSON text. */
  #byId = new Map<string, string>();
  /** Email key → id. */
  #byEmail = new EmailIndex((id) => {
    const json = this.#byId.get(id);
    return json === undefined ? undefined : emailKey(emailOf(json));
  });
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

  /** The live customer with this id, parsed from its text. */
  get(id: string): Customer | undefined {
    const json = this.#byId.get(id);
    return json === undefined ? undefined : JSON.parse(json);
  }

  /** The record of the live customer with this id. */
  record(id: string): CustomerRecord | undefined {
    const json = this.#byId.get(id);
    return json === undefined ? undefined : { id, version: canonicalVersion(json), json };
  }

  /** The version of the live customer with this id. */
  version(id: string): number | undefined {
    const json = this.#byId.get(id);
    return json === undefined ? undefined : canonicalVersion(json);
  }

  /** True when a customer with this id is live. */
  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** The id of the live customer with this email key. */
  emailOwner(key: string): string | undefined {
    return this.#byEmail.owner(key);
  }

  /**
   * Folds one durable event into the model: the customer's JSON text after it (canonical when
   * just committed, the log's own text when replayed), or null for a delete.
   */
  apply(id: string, json: string | null): void {
    if (json === null) this.remove(id);
    else this.put(id, json);
  }

  /** Removes a customer, if live. */
  remove(id: string): void {
    const before = this.#byId.get(id);
    if (before === undefined) return;
    this.#changes++;
    this.#byEmail.remove(emailOf(before), id);
    this.#bury(id);
  }

  /**
   * Sets a live customer from its JSON text (an event's data). Text in another field order
   * (another writer's) is kept in canonical order, so that the version is always where
   * canonicalVersion reads it. `id` must be a string of its own, not a slice of the text: the
   * maps and the id order keep it as long as the customer lives, through updates that replace
   * the text.
   */
  put(id: string, json: string): void {
    const email = canonicalEmail(json);
    if (email !== undefined) this.#put(id, json, email);
    else this.#putParsed(json);
  }

  /** Sets a live customer from its JSON text alone (a snapshot's customer line). */
  putText(json: string): void {
    const email = canonicalEmail(json);
    // Canonical text starts with {"id":"<26 characters>": the key is a copy, not a slice.
    if (email !== undefined) this.#put(JSON.parse(`"${json.slice(7, 33)}"`), json, email);
    else this.#putParsed(json);
  }

  #putParsed(json: string): void {
    const customer = JSON.parse(json) as Customer;
    this.#put(customer.id, customerText(customer), customer.email);
  }

  #put(id: string, json: string, email: string): void {
    this.#changes++;
    const before = this.#byId.get(id);
    if (before === undefined) {
      this.#byEmail.add(email, id);
      this.#insertId(id);
    } else {
      const previous = emailOf(before);
      if (previous !== email && emailKey(previous) !== emailKey(email)) {
        this.#byEmail.remove(previous, id);
        this.#byEmail.add(email, id);
      }
    }
    this.#byId.set(id, json);
  }

  /** Every live customer's text in id order (a new array; texts are immutable values). */
  texts(): string[] {
    const live: string[] = [];
    for (const id of this.#ids) {
      const json = this.#byId.get(id);
      if (json !== undefined) live.push(json);
    }
    return live;
  }

  /** Every live customer's record in id order (a new array). */
  all(): CustomerRecord[] {
    const live: CustomerRecord[] = [];
    for (const id of this.#ids) {
      const record = this.record(id);
      if (record !== undefined) live.push(record);
    }
    return live;
  }

  /** A page of live customers in id order. */
  list(query: ListQuery): ListPage {
    const matches = nameOrEmailMatcher(query.q);
    if (query.email !== undefined) {
      const id = this.#byEmail.owner(emailKey(query.email));
      const json = id === undefined ? undefined : this.#byId.get(id);
      const hit = json !== undefined && (query.after === undefined || id! > query.after) &&
        matches(json);
      return { items: hit ? [this.record(id!)!] : [], more: false };
    }
    const items: CustomerRecord[] = [];
    let i = query.after === undefined ? 0 : this.#indexAfter(query.after);
    for (; i < this.#ids.length; i++) {
      const id = this.#ids[i];
      const json = this.#byId.get(id);
      if (json === undefined || !matches(json)) continue;
      if (items.length === query.limit) return { items, more: true };
      items.push({ id, version: canonicalVersion(json), json });
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

/** The email of a kept (canonical) text. */
function emailOf(json: string): string {
  return canonicalEmail(json) ?? customerFacts(json).email;
}
