import type { EventStore } from "../store/event_store.ts";
import type { ReloadableSource } from "../store/snapshot_source.ts";
import { customerFacts } from "../read_model/customer_facts.ts";
import type { AppliedState } from "./applied_state.ts";
import type { IdempotencyEntry } from "./idempotency.ts";

/** One snapshot line of a remembered idempotency key (a customer's line is its JSON text). */
type IdempotencyRecord = { kind: "idempotency" } & IdempotencyEntry;

/** A snapshot record of a live customer: this prefix, the customer's JSON text, then `}`. */
const CUSTOMER_RECORD = '{"kind":"customer","data":';

/** The customer's JSON text in a whole customer record, or undefined for another record. */
function textOfRecord(record: string): string | undefined {
  return record.startsWith(CUSTOMER_RECORD) ? record.slice(CUSTOMER_RECORD.length, -1) : undefined;
}

/**
 * The applied state as the store's recovery and compaction see it (a ReloadableSource): opaque
 * snapshot lines, the replay after a snapshot, and each customer's durable version.
 */
export class CustomerSnapshots implements ReloadableSource {
  #store: EventStore;
  #state: AppliedState;

  constructor(store: EventStore, state: AppliedState) {
    this.#store = store;
    this.#state = state;
  }

  /** The sequence number of the last event applied. */
  get appliedSeq(): number {
    return this.#state.appliedSeq;
  }

  /**
   * Replays the store's events after `afterSeq` (a restored snapshot's sequence) into the read
   * model and the idempotency keys; returns the number of events replayed.
   */
  replay(afterSeq = 0): Promise<number> {
    const state = this.#state;
    state.moveTo(afterSeq);
    return this.#store.replay((event) => {
      state.apply(event, event.dataJson);
    }, afterSeq);
  }

  /**
   * The state as snapshot records, captured now (records are immutable values, so later changes
   * do not alter what the iterator yields). Customers come as ready JSON text, so a snapshot
   * costs no serialisation. Only keys of live customers are included.
   */
  records(): Iterable<string> {
    const customers = this.#state.projection.texts();
    const keys = [...this.#state.idempotency.entries(this.#state.clock())]
      .filter((entry) => this.isLive(entry.customer.id));
    return (function* () {
      for (const json of customers) yield `${CUSTOMER_RECORD}${json}}`;
      for (const entry of keys) yield JSON.stringify({ kind: "idempotency", ...entry });
    })();
  }

  /** Restores one record of records() (a customer's comes split: `data` is its JSON text). */
  restore(record: string, data?: string): void {
    const json = data ?? textOfRecord(record);
    if (json !== undefined) this.#state.projection.put(json);
    else {
      const { actor, key, requestHash, customer, at } = JSON.parse(record) as IdempotencyRecord;
      this.#state.idempotency.remember(actor, key, { requestHash, customer, at });
    }
  }

  /**
   * Makes the state the snapshot's at `seq` (newer than appliedSeq) in one synchronous step: the
   * customers that are not in it or at another version leave first (so an email that passed from
   * one customer to another is never lost), then its customers and keys come in.
   */
  jumpTo(seq: number, records: readonly string[]): void {
    if (seq <= this.#state.appliedSeq) return;
    const projection = this.#state.projection;
    const customers = new Map<string, { version: number; email: string; json: string }>();
    const keys: string[] = [];
    for (const record of records) {
      const json = textOfRecord(record);
      if (json === undefined) keys.push(record);
      else {
        const { id, version, email } = customerFacts(json);
        customers.set(id, { version, email, json });
      }
    }
    for (const current of projection.all()) {
      const next = customers.get(current.id);
      if (next?.version === current.version) customers.delete(current.id);
      else projection.remove(current.id);
    }
    for (const { json } of customers.values()) projection.put(json);
    for (const key of keys) this.restore(key);
    this.#state.moveTo(seq);
  }

  /** The customer a record of records() belongs to. */
  idOf(record: string, data?: string): string {
    const json = data ?? textOfRecord(record);
    return json !== undefined
      ? customerFacts(json).id
      : (JSON.parse(record) as IdempotencyRecord).customer.id;
  }

  /** The durable version of a live customer. */
  versionOf(id: string): number | undefined {
    return this.#state.projection.version(id);
  }

  /** True when the customer is live in the durable state. */
  isLive(id: string): boolean {
    return this.#state.projection.has(id);
  }
}
