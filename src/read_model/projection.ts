import { type Customer, emailKey, isUlid } from "../domain/customer.ts";
import type { CustomerState } from "../domain/decide.ts";
import { canonicalEmail, canonicalVersion, customerFacts } from "./customer_facts.ts";
import { customerText } from "./customer_text.ts";
import { EmailIndex } from "./email_index.ts";
import { OrderIndex } from "./order_index.ts";
import { SearchIndex } from "./search_index.ts";
import { PagedColumn } from "../lib/paged_column.ts";
import { compareIds, ID_AT, ID_LENGTH, idHash, idTime, TextTable } from "./text_table.ts";

/** A live customer as GET and the list answer it: its JSON text and its version. */
export interface CustomerRecord {
  readonly id: string;
  readonly version: number;
  readonly json: string;
}

/** Told before a customer's text changes: its ordinal and the text it held (undefined if none). */
export type ChangeWatcher = (ordinal: number, before: string | undefined) => void;

/**
 * The in-memory read model: each customer kept as one string, its canonical JSON text, under an
 * ordinal that the indexes hold instead of ids, to save memory; `bench --only=startup` measures it.
 */
export class CustomerProjection implements CustomerState {
  #texts = new TextTable();
  #byEmail = new EmailIndex((idHash, key) => {
    for (const text of this.#texts.under(idHash)) {
      if (emailKey(emailOf(text)) === key) return text.slice(ID_AT, ID_AT + ID_LENGTH);
    }
    return undefined;
  });
  /** Each ordinal's id time, the id order's rough key: turning a search's candidate away reads no text. */
  #idTimes = new PagedColumn();
  /** Live customers in id order. */
  readonly ids = new OrderIndex(
    (a, b) => compareIds(this.textAt(a)!, this.textAt(b)!),
    (ordinal) => this.#idTimes.get(ordinal),
  );
  /** The search indexes; built after the replay (SearchIndex.buildSlice). */
  readonly search = new SearchIndex((ordinal) => this.#texts.textAt(ordinal));
  #watchers = new Set<ChangeWatcher>();
  #changes = 0;

  /** The number of live customers. */
  get size(): number {
    return this.#texts.size;
  }

  /** Counts every change to the model: what a page answered before a change differs from. */
  get changes(): number {
    return this.#changes;
  }

  /** Every ordinal is below this. */
  get ordinalLimit(): number {
    return this.#texts.ordinalLimit;
  }

  /** The text of the live customer holding an ordinal. */
  textAt(ordinal: number): string | undefined {
    return this.#texts.textAt(ordinal);
  }

  /** The ordinal of the live customer with this id, or -1. */
  ordinalOf(id: string): number {
    return this.#texts.ordinalOf(id);
  }

  /** Tells `watcher` of every change until the returned function is called. */
  watch(watcher: ChangeWatcher): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
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
    const ordinal = this.#texts.ordinalOf(id);
    if (ordinal === -1) return;
    const before = this.#texts.textAt(ordinal)!;
    this.#tell(ordinal, before);
    this.#byEmail.remove(emailOf(before), idHash(before, ID_AT));
    this.search.changing(ordinal, before);
    this.ids.delete(ordinal);
    this.#texts.delete(ordinal);
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
    const ordinal = this.#texts.ordinalOf(json.slice(ID_AT, ID_AT + ID_LENGTH));
    if (ordinal === -1) {
      const added = this.#texts.add(json);
      this.#idTimes.set(added, idTime(json));
      this.#tell(added, undefined);
      this.#byEmail.add(email, idHash(json, ID_AT));
      this.ids.insert(added);
      this.search.changing(added, undefined);
      return;
    }
    const before = this.#texts.textAt(ordinal)!;
    this.#tell(ordinal, before);
    const previous = emailOf(before);
    if (previous !== email && emailKey(previous) !== emailKey(email)) {
      const hash = idHash(json, ID_AT);
      this.#byEmail.remove(previous, hash);
      this.#byEmail.add(email, hash);
    }
    this.search.changing(ordinal, before);
    this.#texts.replace(ordinal, json);
  }

  /** Every live customer's text in id order (a new array; texts are immutable values). */
  texts(): string[] {
    const texts: string[] = [];
    this.ids.walk({ chunk: 0, at: 0 }, false, (ordinal) => texts.push(this.textAt(ordinal)!) > 0);
    return texts;
  }

  all(): CustomerRecord[] {
    return this.texts().map(recordOf);
  }

  #tell(ordinal: number, before: string | undefined): void {
    this.#changes++;
    for (const watcher of this.#watchers) watcher(ordinal, before);
  }
}

/** The record of a canonical text. */
export function recordOf(json: string): CustomerRecord {
  return { id: json.slice(ID_AT, ID_AT + ID_LENGTH), version: canonicalVersion(json), json };
}

function emailOf(json: string): string {
  return canonicalEmail(json) ?? customerFacts(json).email;
}
