import type { Customer } from "../domain/customer.ts";
import type { StoredEvent } from "../store/event_store.ts";
import type { CustomerProjection } from "../read_model/projection.ts";
import { IDEMPOTENCY_TTL_MS, IdempotencyKeys } from "./idempotency.ts";

/**
 * The durable state the commands, the snapshots and the log follower share: the read model, the
 * idempotency keys and the seq of the last event applied to them. Only durable events reach it.
 */
export class AppliedState {
  /** The customers as the applied events leave them. */
  readonly projection: CustomerProjection;
  /** The answers of idempotent creates, learnt from their events. */
  readonly idempotency: IdempotencyKeys;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  #appliedSeq = 0;

  constructor(projection: CustomerProjection, clock: () => number, idempotencyMaxKeys?: number) {
    this.projection = projection;
    this.idempotency = new IdempotencyKeys(idempotencyMaxKeys);
    this.clock = clock;
  }

  /** The sequence number of the last event applied. */
  get appliedSeq(): number {
    return this.#appliedSeq;
  }

  /** Says the state is at `seq` without an event: a replay's start, a snapshot, erased seqs. */
  moveTo(seq: number): void {
    this.#appliedSeq = seq;
  }

  /**
   * Applies a durable event, just committed (its data's text made with the log line, and the
   * object) or read from the log (its text only): the read model keeps the text either way.
   * Returns false for an event applied already (a commit that catching up applied first).
   */
  apply(event: Omit<StoredEvent, "data">, json: string | null, data?: Customer): boolean {
    if (event.seq <= this.#appliedSeq) return false;
    this.projection.apply(event.id, json, data?.email);
    this.#appliedSeq = event.seq;
    if (event.type === "customer.created" && event.idempotency_key !== undefined) {
      const at = Date.parse(event.time);
      // A key past its TTL never answers again: replaying an old log need not parse its customer.
      if (data === undefined && this.clock() - at >= IDEMPOTENCY_TTL_MS) return true;
      this.idempotency.remember(event.actor, event.idempotency_key, {
        requestHash: event.request_hash ?? "",
        customer: data ?? JSON.parse(json!),
        at,
      });
    }
    return true;
  }
}
