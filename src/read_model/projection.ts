import { type Customer, emailKey, isUlid } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import { canonicalEmail, canonicalVersion, customerFacts } from "./customer_facts.ts";
import { customerText } from "./customer_text.ts";
import { nameOrEmailMatcher } from "./customer_search.ts";
import { EmailIndex } from "./email_index.ts";
import { IdOrder } from "./id_order.ts";
import { ID_AT, ID_LENGTH, idHash, idOf, TextTable } from "./text_table.ts";

/** What a page of the list asks for. */
export interface ListQuery {
  after?: string;
  limit: number;
  /** Exact email, compared case-insensitively. */
  email?: string;
  q?: string;
}

/** A live customer as GET and the list answer it: its JSON text and its version. */
export interface CustomerRecord {
  readonly id: string;
  readonly version: number;
  readonly json: string;
}

/** One page of customers, and whether more match after it. */
export interface ListPage {
  items: CustomerRecord[];
  more: boolean;
}

/**
 * The in-memory read model: each customer kept as one string, its canonical JSON text, with
 * indexes of hashes, not key strings, to save memory; `bench --only=startup` measures it.
 */
export class CustomerProjection implements CustomerState {
  #texts = new TextTable();
  #byEmail = new EmailIndex((idHash, key) => {
    for (const text of this.#texts.under(idHash)) {
      if (emailKey(emailOf(text)) === key) return text.slice(ID_AT, ID_AT + ID_LENGTH);
    }
    return undefined;
  });
  #order = new IdOrder();
  #changes = 0;

  /** The number of live customers. */
  get size(): number {
    return this.#texts.size;
  }

  /** Counts every change to the model: what a page answered before a change differs from. */
  get changes(): number {
    return this.#changes;
  }

  /** The live customer with this id, parsed from its text. */
  get(id: string): Customer | undefined {
    const json = this.#texts.get(id);
    return json === undefined ? undefined : JSON.parse(json);
  }

  record(id: string): CustomerRecord | undefined {
    const json = this.#texts.get(id);
    return json === undefined ? undefined : { id, version: canonicalVersion(json), json };
  }

  version(id: string): number | undefined {
    const json = this.#texts.get(id);
    return json === undefined ? undefined : canonicalVersion(json);
  }

  has(id: string): boolean {
    return this.#texts.get(id) !== undefined;
  }

  /** The id of the live customer with this email key. */
  emailOwner(key: string): string | undefined {
    return this.#byEmail.owner(key);
  }

  /** Folds one durable event into the model: the customer's text after it, or null for a delete. */
  apply(id: string, json: string | null, email?: string): void {
    if (json === null) this.remove(id);
    else this.put(json, email);
  }

  remove(id: string): void {
    const before = this.#texts.delete(id);
    if (before === undefined) return;
    this.#changes++;
    this.#byEmail.remove(emailOf(before), idHash(before, ID_AT));
    // The tombstone is kept: a copy of the id, not the caller's string (a slice of a URL, say).
    this.#order.remove(idOf(before));
  }

  /**
   * Sets a live customer from its JSON text; text in another field order is kept canonical, so the
   * id, email and version are where customer_facts.ts reads them. `email` spares reading it back.
   */
  put(json: string, email = canonicalEmail(json)): void {
    if (email === undefined) {
      const customer = JSON.parse(json) as Customer;
      if (!isUlid(customer.id)) throw new Error(`A customer's id is not a ULID: ${customer.id}`);
      json = customerText(customer);
      email = customer.email;
    }
    this.#changes++;
    const before = this.#texts.set(json);
    if (before === undefined) this.#byEmail.add(email, idHash(json, ID_AT));
    else {
      const previous = emailOf(before);
      if (previous !== email && emailKey(previous) !== emailKey(email)) {
        const hash = idHash(json, ID_AT);
        this.#byEmail.remove(previous, hash);
        this.#byEmail.add(email, hash);
      }
    }
    this.#order.put(json);
  }

  /** Every live customer's text in id order (a new array; texts are immutable values). */
  texts(): string[] {
    return this.#order.texts();
  }

  all(): CustomerRecord[] {
    return this.texts().map(recordOf);
  }

  /** A page of live customers in id order. */
  list(query: ListQuery): ListPage {
    const matches = nameOrEmailMatcher(query.q);
    if (query.email !== undefined) {
      const id = this.#byEmail.owner(emailKey(query.email));
      const json = id === undefined ? undefined : this.#texts.get(id);
      const hit = json !== undefined && (query.after === undefined || id! > query.after) &&
        matches(json);
      return { items: hit ? [recordOf(json)] : [], more: false };
    }
    const items: CustomerRecord[] = [];
    const order = this.#order;
    let i = query.after === undefined ? 0 : order.indexAfter(query.after);
    for (; i < order.length; i++) {
      const json = order.at(i);
      if (json === undefined || !matches(json)) continue;
      if (items.length === query.limit) return { items, more: true };
      items.push(recordOf(json));
    }
    return { items, more: false };
  }
}

function recordOf(json: string): CustomerRecord {
  return { id: json.slice(ID_AT, ID_AT + ID_LENGTH), version: canonicalVersion(json), json };
}

function emailOf(json: string): string {
  return canonicalEmail(json) ?? customerFacts(json).email;
}
