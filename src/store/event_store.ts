import type { CustomerEvent } from "../domain/events.ts";

/** Who caused an event and on which request. */
export interface EventMeta {
  actor: string;
  request_id: string;
  /** The Idempotency-Key of a create, when one was given. */
  idempotency_key?: string;
  /** A hash of the request body that carried the idempotency key. */
  request_hash?: string;
}

/** An event as the log stores it: the domain event, its metadata and a gap-free sequence number. */
export type StoredEvent = CustomerEvent & EventMeta & { seq: number };

/**
 * An event as replay and readFrom hand it over: its data as canonical JSON text (null for a
 * delete), kept byte for byte by the store (never PostgreSQL `jsonb`, which reorders keys).
 */
export type ReplayedEvent = Omit<StoredEvent, "data"> & { dataJson: string | null };

/** An event to append; `dataJson`, when given, is its data already serialised (it is reused). */
export type NewEvent = CustomerEvent & EventMeta & { dataJson?: string };

export interface AppendOptions {
  /** Per customer id, the version its stream must be at (0: none); one mismatch rejects all. */
  expected?: Readonly<Record<string, number>>;
}

/** The durable, append-only event log port; every backend passes event_store_contract.ts. */
export interface EventStore {
  /** The sequence number of the last durable event (0 when empty). */
  readonly lastSeq: number;
  /**
   * The erasure horizon: a customer deleted at or before it has no earlier event left in the
   * store. It only grows, once visible to every read, so in-memory readers may forget them.
   */
  readonly erasedSeq: number;
  /** Reads every durable event after `afterSeq` in order, once, before the first append. */
  replay(onEvent: (event: ReplayedEvent) => void, afterSeq?: number): Promise<number>;
  /** Appends events; resolves once they are durable. Appends made together may share one sync. */
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]>;
  /**
   * Up to `limit` durable events after `afterSeq`, skipping erased ones; rejects with
   * LogTruncatedError when retention dropped the events right after `afterSeq`.
   */
  readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]>;
  /** Resolves with lastSeq once an event after `afterSeq` is durable, or rejects on abort/close. */
  waitForCommit(afterSeq: number, signal?: AbortSignal): Promise<number>;
  close(): Promise<void>;
}
