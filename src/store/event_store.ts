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
 * An event as replay and readFrom hand it over: its data left as JSON text (null for a delete), so
 * a reader that keeps text builds no object graph per event. That text is canonical JSON in the
 * customer's field order, made once by read_model/customer_text.ts; a store keeps it byte for byte
 * (a PostgreSQL store uses a `json` or `text` column, never `jsonb`, which reorders keys).
 */
export type ReplayedEvent = Omit<StoredEvent, "data"> & { dataJson: string | null };

/** An event to append; `dataJson`, when given, is its data already serialised (it is reused). */
export type NewEvent = CustomerEvent & EventMeta & { dataJson?: string };

/** Options of one append. */
export interface AppendOptions {
  /**
   * Per customer id, the version its stream must be at before this batch (0: no event yet). One
   * mismatch rejects the whole batch with ExpectedVersionConflictError and writes nothing.
   */
  expected?: Readonly<Record<string, number>>;
}

/**
 * A durable, append-only log of customer events with gap-free sequence numbers: the port the
 * services own. Backends: store/memory (the reference), store/jsonl; every one passes
 * tests/store/event_store_contract.ts. Errors are StoreError subclasses (store_errors.ts).
 */
export interface EventStore {
  /** The sequence number of the last durable event (0 when empty). */
  readonly lastSeq: number;
  /**
   * The erasure horizon: every customer deleted at a seq up to this one has no earlier event left
   * in the store (0: none known yet). It only grows, and only once that erasure is visible to every
   * read, so a reader that keeps events in memory (the feed) forgets a deleted customer's earlier
   * events once this passes its delete, and reads from then on cannot bring them back.
   */
  readonly erasedSeq: number;
  /**
   * Reads every durable event after `afterSeq` (default 0) in sequence order into onEvent, once,
   * before the first append. Resolves with the number of events handed over.
   */
  replay(onEvent: (event: ReplayedEvent) => void, afterSeq?: number): Promise<number>;
  /**
   * Appends events; resolves once they are durable, with their sequence numbers. Appends made
   * together may share one sync.
   */
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]>;
  /**
   * Up to `limit` durable events after `afterSeq`, in sequence order, read from the live log while
   * appends go on. Events that erasure removed are skipped (seq has gaps there); when retention
   * dropped events right after `afterSeq`, rejects with LogTruncatedError naming the oldest seq.
   */
  readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]>;
  /**
   * Resolves with lastSeq once an event after `afterSeq` is durable (at once if one already is);
   * rejects with the signal's reason when the signal aborts first, with StoreClosedError when the
   * store closes first.
   */
  waitForCommit(afterSeq: number, signal?: AbortSignal): Promise<number>;
  /** Waits for pending appends, then releases the store. */
  close(): Promise<void>;
}
