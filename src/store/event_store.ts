import type { CustomerEvent } from "../domain/events.ts";

/** Who caused an event and on which request. */
export interface EventMeta {
  /** The `sub` claim of the token that made the change. */
  actor: string;
  /** The request's X-Request-Id. */
  request_id: string;
  /** The Idempotency-Key of a create, when one was given. */
  idempotency_key?: string;
  /** A hash of the request body that carried the idempotency key. */
  request_hash?: string;
}

/** An event as the log stores it: the domain event, its metadata and a gap-free sequence number. */
export type StoredEvent = CustomerEvent & EventMeta & { seq: number };

/**
 * An event as replay hands it over: its data left as JSON text (null for a delete), so a reader
 * that keeps text builds no object graph per event.
 */
export type ReplayedEvent = Omit<StoredEvent, "data"> & { dataJson: string | null };

/** An event to append; `dataJson`, when given, is its data already serialised (it is reused). */
export type NewEvent = CustomerEvent & EventMeta & { dataJson?: string };

/** A durable, append-only log of customer events. */
export interface EventStore {
  /** The sequence number of the last durable event (0 when empty). */
  readonly lastSeq: number;
  /**
   * Reads every durable event after `afterSeq` (default 0) in sequence order into onEvent; must
   * finish before the first append. Resolves with the number of events handed over.
   */
  replay(onEvent: (event: ReplayedEvent) => void, afterSeq?: number): Promise<number>;
  /**
   * Appends events; resolves once they are durable on disk, with their sequence numbers.
   * Appends made together may share one sync.
   */
  append(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  /** Waits for pending appends, then releases the store. */
  close(): Promise<void>;
}
