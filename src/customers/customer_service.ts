import type { ExpectedVersions } from "../domain/commands.ts";
import type { Customer } from "../domain/customer.ts";
import { decide, type DecideContext } from "../domain/decide.ts";
import { IdempotencyKeyInFlightError, IdempotencyKeyReusedError } from "../domain/errors.ts";
import type { CustomerCommand } from "../domain/commands.ts";
import type { CustomerEvent } from "../domain/events.ts";
import type {
  EventMeta,
  EventStore,
  NewEvent,
  ReplayedEvent,
  StoredEvent,
} from "../store/event_store.ts";
import type { ReloadableSource } from "../store/snapshot_source.ts";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
  LogTruncatedError,
} from "../store/store_errors.ts";
import { customerFacts } from "../read_model/customer_facts.ts";
import { decidedCustomerText } from "../read_model/customer_text.ts";
import type {
  CustomerProjection,
  CustomerRecord,
  ListPage,
  ListQuery,
} from "../read_model/projection.ts";
import { IDEMPOTENCY_TTL_MS, type IdempotencyEntry, IdempotencyKeys } from "./idempotency.ts";
import { PendingState } from "./pending_state.ts";
import { WRITE_DEADLINE_MS, WriteContendedError } from "./write_contention.ts";
import { requestHash } from "./request_hash.ts";

/** Who is writing, for the event's metadata. */
export interface WriteContext {
  actor: string;
  requestId: string;
  /** Set by the service: the seq of the write's own event, or the applied seq when none was written. */
  committedSeq?: number;
  /**
   * Set by the service: the canonical text of the customer the write committed (the answer's body,
   * made once with the log line), or undefined when it committed none (a delete, a no-op, a replay).
   */
  committedText?: string;
}

/** What the service is built from; time and ids are injected so tests can fix them. */
export interface CustomerServiceDeps {
  store: EventStore;
  projection: CustomerProjection;
  /** Milliseconds since the epoch. */
  clock: () => number;
  newId: () => string;
  /** IDEMPOTENCY_MAX_KEYS: most idempotency keys remembered (default 100,000). */
  idempotencyMaxKeys?: number;
  /** How long a write may keep losing races to other replicas (default WRITE_DEADLINE_MS). */
  writeDeadlineMs?: number;
}

/**
 * Called after each write is durable and applied (metrics and the compaction policy listen), with
 * the event's data as the log stores it (its JSON text, null for a delete), for listeners that
 * keep events as the log hands them over (the feed's recent events).
 */
export type CommitListener = (event: StoredEvent, dataJson: string | null) => void;

/** Told of an event another writer of a shared store committed, after it is applied here. */
export type FollowListener = (event: ReplayedEvent) => void;

/** One snapshot line of a remembered idempotency key (a customer's line is its JSON text). */
type IdempotencyRecord = { kind: "idempotency" } & IdempotencyEntry;

/** A snapshot record of a live customer: this prefix, the customer's JSON text, then `}`. */
const CUSTOMER_RECORD = '{"kind":"customer","data":';

/** The customer's JSON text in a whole customer record, or undefined for another record. */
function textOfRecord(record: string): string | undefined {
  return record.startsWith(CUSTOMER_RECORD) ? record.slice(CUSTOMER_RECORD.length, -1) : undefined;
}

/** The result of a create: the customer, and whether it is a replay of an earlier answer. */
export interface CreateResult {
  customer: Customer;
  replayed: boolean;
}

/**
 * The application service: decides commands against the write model and commits them durably.
 * It is the store's SnapshotSource: its state as opaque snapshot lines, and stream versions.
 */
export class CustomerService implements ReloadableSource {
  #store: EventStore;
  #projection: CustomerProjection;
  #pending: PendingState;
  #idempotency: IdempotencyKeys;
  #clock: () => number;
  #context: DecideContext;
  #appliedSeq = 0;
  #commitListeners: CommitListener[] = [];
  #followListeners: FollowListener[] = [];
  #catchingUp: Promise<void> | undefined;
  #reload: (() => Promise<boolean>) | undefined;
  #writeDeadlineMs: number;

  constructor(deps: CustomerServiceDeps) {
    this.#store = deps.store;
    this.#projection = deps.projection;
    this.#pending = new PendingState(deps.projection);
    this.#idempotency = new IdempotencyKeys(deps.idempotencyMaxKeys);
    this.#clock = deps.clock;
    this.#context = { now: isoClock(deps.clock), newId: deps.newId };
    this.#writeDeadlineMs = deps.writeDeadlineMs ?? WRITE_DEADLINE_MS;
  }

  /** The sequence number of the last event applied to the read model. */
  get appliedSeq(): number {
    return this.#appliedSeq;
  }

  /** Adds a listener called after each write is durable and applied, in registration order. */
  addCommitListener(listener: CommitListener): void {
    this.#commitListeners.push(listener);
  }

  /** Adds a listener called for each event another replica wrote, once applied here, in seq order. */
  addFollowListener(listener: FollowListener): void {
    this.#followListeners.push(listener);
  }

  /**
   * Replays the store's events after `afterSeq` (a restored snapshot's sequence) into the read
   * model and the idempotency keys; returns the number of events replayed.
   */
  replay(afterSeq = 0): Promise<number> {
    this.#appliedSeq = afterSeq;
    return this.#store.replay((event) => this.#apply(event, event.dataJson), afterSeq);
  }

  /**
   * The state as snapshot records, captured now (records are immutable values, so later changes
   * do not alter what the iterator yields). Customers come as ready JSON text, so a snapshot
   * costs no serialisation. Only keys of live customers are included.
   */
  records(): Iterable<string> {
    const customers = this.#projection.texts();
    const keys = [...this.#idempotency.entries(this.#clock())]
      .filter((entry) => this.isLive(entry.customer.id));
    return (function* () {
      for (const json of customers) yield `${CUSTOMER_RECORD}${json}}`;
      for (const entry of keys) yield JSON.stringify({ kind: "idempotency", ...entry });
    })();
  }

  /** Restores one record of records() (a customer's comes split: `data` is its JSON text). */
  restore(record: string, data?: string): void {
    const json = data ?? textOfRecord(record);
    if (json !== undefined) this.#projection.put(json);
    else {
      const { actor, key, requestHash, customer, at } = JSON.parse(record) as IdempotencyRecord;
      this.#idempotency.remember(actor, key, { requestHash, customer, at });
    }
  }

  /**
   * Makes the state the snapshot's at `seq` (newer than appliedSeq) in one synchronous step: the
   * customers that are not in it or at another version leave first (so an email that passed from
   * one customer to another is never lost), then its customers and keys come in.
   */
  jumpTo(seq: number, records: readonly string[]): void {
    if (seq <= this.#appliedSeq) return;
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
    for (const current of this.#projection.all()) {
      const next = customers.get(current.id);
      if (next?.version === current.version) customers.delete(current.id);
      else this.#projection.remove(current.id);
    }
    for (const { json } of customers.values()) this.#projection.put(json);
    for (const key of keys) this.restore(key);
    this.#appliedSeq = seq;
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
    return this.#projection.version(id);
  }

  /** True when the customer is live in the durable state. */
  isLive(id: string): boolean {
    return this.#projection.has(id);
  }

  /** A live customer (durable state only), parsed from its record. */
  get(id: string): Customer | undefined {
    return this.#projection.get(id);
  }

  /** The record of a live customer: its JSON text and version, as GET answers them. */
  record(id: string): CustomerRecord | undefined {
    return this.#projection.record(id);
  }

  /** Counts changes to the read model: a page answered at another count may differ. */
  get readModelChanges(): number {
    return this.#projection.changes;
  }

  /** A page of live customers. */
  list(query: ListQuery): ListPage {
    return this.#projection.list(query);
  }

  /** Creates a customer; with an idempotency key, a repeat answers the first result again. */
  async create(
    body: unknown,
    context: WriteContext,
    key?: string,
    caughtUp = false,
  ): Promise<CreateResult> {
    if (key === undefined) {
      const customer = await this.#commit({ type: "CreateCustomer", body }, context);
      return { customer: customer!, replayed: false };
    }
    const hash = requestHash(body);
    const earlier = this.#idempotency.lookup(context.actor, key, this.#clock());
    if (earlier !== undefined) {
      if (earlier.requestHash !== hash) throw new IdempotencyKeyReusedError();
      context.committedSeq = this.#appliedSeq;
      context.committedText = undefined;
      return { customer: earlier.customer, replayed: true };
    }
    if (this.#idempotency.isInFlight(context.actor, key)) throw new IdempotencyKeyInFlightError();
    this.#idempotency.begin(context.actor, key);
    try {
      const meta = { idempotency_key: key, request_hash: hash };
      const customer = await this.#commit({ type: "CreateCustomer", body }, context, meta);
      return { customer: customer!, replayed: false };
    } catch (error) {
      // Another replica committed this key first: learn its answer from the log, then replay it.
      if (!(error instanceof IdempotencyKeyTakenError) || caughtUp) throw error;
    } finally {
      this.#idempotency.release(context.actor, key);
    }
    await this.catchUp();
    return this.create(body, context, key, true);
  }

  /** Replaces every mutable field. */
  async replace(
    id: string,
    body: unknown,
    expectedVersions: ExpectedVersions | undefined,
    context: WriteContext,
  ): Promise<Customer> {
    return (await this.#commit({ type: "ReplaceCustomer", id, body, expectedVersions }, context))!;
  }

  /** Applies a JSON merge patch. */
  async patch(
    id: string,
    patch: unknown,
    expectedVersions: ExpectedVersions | undefined,
    context: WriteContext,
  ): Promise<Customer> {
    return (await this.#commit({ type: "PatchCustomer", id, patch, expectedVersions }, context))!;
  }

  /** Deletes a customer. */
  async delete(
    id: string,
    expectedVersions: ExpectedVersions | undefined,
    context: WriteContext,
  ): Promise<void> {
    await this.#commit({ type: "DeleteCustomer", id, expectedVersions }, context);
  }

  /**
   * How catching up goes on when the log no longer holds the next event to apply (a shared log's
   * retention dropped it while this replica was cut off): `reload` moves the state on to a newer
   * snapshot (jumpTo) and resolves true, or false when none is newer. Without it, catchUp rejects.
   */
  onLogTruncated(reload: () => Promise<boolean>): void {
    this.#reload = reload;
  }

  /**
   * Applies the events other writers (replicas on a shared store) committed after appliedSeq, in
   * seq order, up to the store's lastSeq; concurrent calls share one pass.
   */
  catchUp(): Promise<void> {
    this.#catchingUp ??= this.#readLog().finally(() => (this.#catchingUp = undefined));
    return this.#catchingUp;
  }

  async #readLog(): Promise<void> {
    while (this.#appliedSeq < this.#store.lastSeq) {
      const head = this.#store.lastSeq;
      let events: ReplayedEvent[];
      try {
        events = await this.#store.readFrom(this.#appliedSeq, 1000);
      } catch (error) {
        const reload = this.#reload;
        if (!(error instanceof LogTruncatedError) || reload === undefined || !(await reload())) {
          throw error;
        }
        continue; // Moved on to a snapshot: read on from its seq.
      }
      // Nothing left but seqs that erasure removed: the state is at the head.
      if (events.length === 0) this.#appliedSeq = Math.max(this.#appliedSeq, head);
      for (const event of events) {
        if (event.seq <= this.#appliedSeq) continue;
        this.#apply(event, event.dataJson);
        for (const listener of this.#followListeners) listener(event);
      }
    }
  }

  /**
   * Commits; when a shared store refuses the append because another replica wrote first, catches
   * up with the log and decides again, until it commits or its deadline passes. A client's
   * If-Match is checked by each decision, so only a version the client named answers 412.
   * Resolves with the customer after the change (undefined after a delete).
   */
  async #commit(
    command: CustomerCommand,
    context: WriteContext,
    extra?: IdempotencyMeta,
  ): Promise<Customer | undefined> {
    const deadline = this.#clock() + this.#writeDeadlineMs;
    for (let lost = 0;; lost++) {
      try {
        return await this.#commitOnce(command, context, extra);
      } catch (error) {
        if (!(error instanceof ExpectedVersionConflictError || error instanceof EmailInUseError)) {
          throw error;
        }
        await this.catchUp();
        if (this.#clock() >= deadline) throw new WriteContendedError(this.#writeDeadlineMs);
        // Replicas that keep losing to each other spread out, so one of them wins.
        if (lost > 0) await delay(Math.random() * Math.min(50, 2 ** lost));
      }
    }
  }

  /** Decides synchronously (so concurrent commands see each other), then waits for durability. */
  async #commitOnce(
    command: CustomerCommand,
    context: WriteContext,
    extra: IdempotencyMeta | undefined,
  ): Promise<Customer | undefined> {
    if (command.type !== "CreateCustomer") {
      // One change of a customer in flight at a time: each is decided on durable state.
      let busy = this.#pending.settled(command.id);
      while (busy !== undefined) {
        await busy;
        busy = this.#pending.settled(command.id);
      }
    }
    const event = decide(command, this.#pending, this.#context);
    if (event === undefined) {
      context.committedSeq = this.#appliedSeq;
      context.committedText = undefined;
      return this.get((command as { id: string }).id);
    }
    // Serialised once: the log line, the read model and the response all use this text.
    const json = event.data === null ? undefined : decidedCustomerText(event.data);
    const holding = this.#pending.hold(event);
    try {
      const appended = await this.#store.append([newEvent(event, context, json, extra)], {
        expected: streamAt(event.id, event.version - 1),
      });
      const stored = appended[0];
      // Events of other writers before this one are applied first (read-your-writes, in order).
      if (stored.seq > this.#appliedSeq + 1) await this.catchUp();
      this.#apply(stored, json ?? null, event.data ?? undefined);
      for (const listener of this.#commitListeners) listener(stored, json ?? null);
      context.committedSeq = stored.seq;
      context.committedText = json;
      return event.data ?? undefined;
    } finally {
      this.#pending.release(holding);
    }
  }

  /**
   * Applies a durable event, just committed (its data's text made in #commit, and the object) or
   * replayed (the log's own text only): the read model keeps the text either way.
   */
  #apply(event: Omit<StoredEvent, "data">, json: string | null, data?: Customer): void {
    if (event.seq <= this.#appliedSeq) return; // Applied already, by catchUp.
    this.#projection.apply(event.id, json, data?.email);
    this.#appliedSeq = event.seq;
    if (event.type === "customer.created" && event.idempotency_key !== undefined) {
      const at = Date.parse(event.time);
      // A key past its TTL never answers again: replaying an old log need not parse its customer.
      if (data === undefined && this.#clock() - at >= IDEMPOTENCY_TTL_MS) return;
      this.#idempotency.remember(event.actor, event.idempotency_key, {
        requestHash: event.request_hash ?? "",
        customer: data ?? JSON.parse(json!),
        at,
      });
    }
  }
}

/** The metadata of a create that carried an idempotency key. */
type IdempotencyMeta = Required<Pick<EventMeta, "idempotency_key" | "request_hash">>;

/**
 * The event to append: the decided event, who wrote it, and its data's text. Spelled out: two
 * spreads (as before) copied the event through the engine's slow generic path on every write.
 */
function newEvent(
  event: CustomerEvent,
  context: WriteContext,
  dataJson: string | undefined,
  extra: IdempotencyMeta | undefined,
): NewEvent {
  const next = {
    type: event.type,
    id: event.id,
    version: event.version,
    time: event.time,
    data: event.data,
    actor: context.actor,
    request_id: context.requestId,
    dataJson,
  } as NewEvent;
  if (extra !== undefined) {
    next.idempotency_key = extra.idempotency_key;
    next.request_hash = extra.request_hash;
  }
  return next;
}

/**
 * `{ [id]: version }`, an append's expected version, made a dictionary from the start: a literal
 * with a new key per write (as before) made the engine a new hidden class per customer id.
 */
function streamAt(id: string, version: number): Record<string, number> {
  const expected: Record<string, number> = Object.create(null);
  expected[id] = version;
  return expected;
}

/** The clock's time as RFC 3339 text; writes in the same millisecond share one formatting. */
function isoClock(clock: () => number): () => string {
  let lastMs = NaN;
  let lastText = "";
  return () => {
    const ms = clock();
    if (ms !== lastMs) {
      lastText = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastText;
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
