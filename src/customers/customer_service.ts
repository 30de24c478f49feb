import type { CustomerCommand, ExpectedVersions } from "../domain/commands.ts";
import type { Customer } from "../domain/customer.ts";
import { decide, type DecideContext } from "../domain/decide.ts";
import { IdempotencyKeyInFlightError, IdempotencyKeyReusedError } from "../domain/errors.ts";
import type { EventStore, StoredEvent } from "../store/event_store.ts";
import { IdempotencyKeyTakenError } from "../store/store_errors.ts";
import { decidedCustomerText } from "../read_model/customer_text.ts";
import { isoClock } from "../lib/iso_clock.ts";
import type { CustomerProjection, CustomerRecord } from "../read_model/projection.ts";
import { AppliedState } from "./applied_state.ts";
import { CustomerLists } from "./customer_lists.ts";
import { CustomerSnapshots } from "./customer_snapshots.ts";
import { LogFollower } from "./log_follower.ts";
import { type IdempotencyMeta, newEvent, streamAt } from "./new_event.ts";
import { PendingState } from "./pending_state.ts";
import { requestHash } from "./request_hash.ts";
import { untilUncontended, WRITE_DEADLINE_MS } from "./write_contention.ts";
import type { Committed, WriteContext } from "./write_context.ts";
import type { StartSpan } from "../lib/trace_span.ts";

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
  /** Traces each search (tracing on). */
  span?: StartSpan;
}

/** Told of each durable, applied write with its data's text as logged (null for a delete). */
export type CommitListener = (event: StoredEvent, dataJson: string | null) => void;

/** The customer use cases: decided on the write model, committed durably, read when durable. */
export class CustomerService {
  /** The state as the store's recovery and compaction see it. */
  readonly snapshots: CustomerSnapshots;
  /** Applies what other replicas commit to a shared store. */
  readonly follower: LogFollower;
  /** The list and its searches. */
  readonly lists: CustomerLists;
  #store: EventStore;
  #state: AppliedState;
  #pending: PendingState;
  #context: DecideContext;
  #commitListeners: CommitListener[] = [];
  #writeDeadlineMs: number;

  constructor(deps: CustomerServiceDeps) {
    this.#store = deps.store;
    this.#state = new AppliedState(deps.projection, deps.clock, deps.idempotencyMaxKeys);
    this.snapshots = new CustomerSnapshots(deps.store, this.#state);
    this.follower = new LogFollower(deps.store, this.#state);
    this.lists = new CustomerLists(
      deps.projection,
      () => this.#state.appliedSeq,
      undefined,
      deps.span,
    );
    this.#pending = new PendingState(deps.projection);
    this.#context = { now: isoClock(deps.clock), newId: deps.newId };
    this.#writeDeadlineMs = deps.writeDeadlineMs ?? WRITE_DEADLINE_MS;
  }

  /** The sequence number of the last event applied to the read model. */
  get appliedSeq(): number {
    return this.#state.appliedSeq;
  }

  /** Adds a listener called after each write is durable and applied, in registration order. */
  addCommitListener(listener: CommitListener): void {
    this.#commitListeners.push(listener);
  }

  /** A live customer (durable state only), parsed from its record. */
  get(id: string): Customer | undefined {
    return this.#state.projection.get(id);
  }

  /** The record of a live customer: its JSON text and version, as GET answers them. */
  record(id: string): CustomerRecord | undefined {
    return this.#state.projection.record(id);
  }

  /** Counts changes to the read model: a page answered at another count may differ. */
  get readModelChanges(): number {
    return this.#state.projection.changes;
  }

  /** Creates a customer; with an idempotency key, a repeat answers the first result again. */
  async create(
    body: unknown,
    context: WriteContext,
    key?: string,
    caughtUp = false,
  ): Promise<Committed> {
    if (key === undefined) {
      return await this.#commit({ type: "CreateCustomer", body }, context) as Committed;
    }
    const keys = this.#state.idempotency;
    const hash = requestHash(body);
    const earlier = keys.lookup(context.actor, key, this.#state.clock());
    if (earlier !== undefined) {
      if (earlier.requestHash !== hash) throw new IdempotencyKeyReusedError();
      const seq = this.#state.appliedSeq;
      return { customer: earlier.customer, seq, text: undefined, replayed: true };
    }
    if (keys.isInFlight(context.actor, key)) throw new IdempotencyKeyInFlightError();
    keys.begin(context.actor, key);
    try {
      const meta = { idempotency_key: key, request_hash: hash };
      return await this.#commit({ type: "CreateCustomer", body }, context, meta) as Committed;
    } catch (error) {
      // Another replica committed this key first: learn its answer from the log, then replay it.
      if (!(error instanceof IdempotencyKeyTakenError) || caughtUp) throw error;
    } finally {
      keys.release(context.actor, key);
    }
    await this.follower.catchUp();
    return this.create(body, context, key, true);
  }

  /** Replaces every mutable field. */
  async replace(
    id: string,
    body: unknown,
    expectedVersions: ExpectedVersions | undefined,
    context: WriteContext,
  ): Promise<Committed> {
    const command = { type: "ReplaceCustomer", id, body, expectedVersions } as const;
    return await this.#commit(command, context) as Committed;
  }

  /** Applies a JSON merge patch. */
  async patch(
    id: string,
    patch: unknown,
    expectedVersions: ExpectedVersions | undefined,
    context: WriteContext,
  ): Promise<Committed> {
    const command = { type: "PatchCustomer", id, patch, expectedVersions } as const;
    return await this.#commit(command, context) as Committed;
  }

  delete(
    id: string,
    expectedVersions: ExpectedVersions | undefined,
    context: WriteContext,
  ): Promise<Committed<undefined>> {
    const command = { type: "DeleteCustomer", id, expectedVersions } as const;
    return this.#commit(command, context) as Promise<Committed<undefined>>;
  }

  /** Commits, deciding anew while other replicas win; only the client's own If-Match gives 412. */
  #commit(
    command: CustomerCommand,
    context: WriteContext,
    extra?: IdempotencyMeta,
  ): Promise<Committed<Customer | undefined>> {
    return untilUncontended(() => this.#commitOnce(command, context, extra), {
      catchUp: () => this.follower.catchUp(),
      clock: this.#state.clock,
      deadlineMs: this.#writeDeadlineMs,
    });
  }

  /** Decides synchronously (so concurrent commands see each other), then waits for durability. */
  async #commitOnce(
    command: CustomerCommand,
    context: WriteContext,
    extra: IdempotencyMeta | undefined,
  ): Promise<Committed<Customer | undefined>> {
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
      const customer = this.get((command as { id: string }).id);
      return { customer, seq: this.#state.appliedSeq, text: undefined };
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
      if (stored.seq > this.#state.appliedSeq + 1) await this.follower.catchUp();
      this.#state.apply(stored, json ?? null, event.data ?? undefined);
      for (const listener of this.#commitListeners) listener(stored, json ?? null);
      return { customer: event.data ?? undefined, seq: stored.seq, text: json };
    } finally {
      this.#pending.release(holding);
    }
  }
}
