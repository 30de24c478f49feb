import type {
  AppendOptions,
  EventStore,
  NewEvent,
  ReplayedEvent,
  StoredEvent,
} from "../event_store.ts";
import type { CustomerEvent } from "../../domain/events.ts";
import { CommitWaiters } from "../commit_waiters.ts";
import { LogTruncatedError, StoreClosedError, StoreUnavailableError } from "../store_errors.ts";
import type { CommitStats } from "./commit_stats.ts";
import type { CommitTrace } from "../commit_trace.ts";
import { GroupCommitter } from "./group_committer.ts";
import { type Notice, NotifiedTail } from "./notified_tail.ts";
import { HeadWatch, readHead } from "./head_watch.ts";
import { createPool, type PgPool } from "./pg_connection.ts";
import { migrate } from "./schema.ts";

interface EventRow {
  seq: string;
  type: CustomerEvent["type"];
  customer_id: string;
  version: number;
  time: string;
  actor: string;
  request_id: string;
  idempotency_key: string | null;
  request_hash: string | null;
  data: string | null;
}

/**
 * The page, with the first seq the log still holds (retention) and the erasure horizon read in the
 * same snapshot: no event of a customer deleted up to that horizon is in the page.
 */
const SELECT_EVENTS = `SELECT s.first_seq, s.erased_seq, e.* FROM log_start s LEFT JOIN LATERAL (
  SELECT seq, type, customer_id, version, time, actor, request_id, idempotency_key, request_hash,
    data FROM events WHERE seq > $1 AND seq <= $3 ORDER BY seq LIMIT $2) e ON true`;

function replayed(row: EventRow): ReplayedEvent {
  const event = {
    type: row.type,
    id: row.customer_id,
    version: row.version,
    time: row.time,
    actor: row.actor,
    request_id: row.request_id,
    seq: Number(row.seq),
    dataJson: row.data,
  } as ReplayedEvent;
  if (row.idempotency_key !== null) event.idempotency_key = row.idempotency_key;
  if (row.request_hash !== null) event.request_hash = row.request_hash;
  return event;
}

/** Settings of a PostgreSQL store. */
export interface PostgresStoreOptions {
  /** Most connections of the pool (default 4: the writer's and three for everything else). */
  maxConnections?: number;
  /** Called with errors of idle connections (the pool replaces them). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
  trace?: CommitTrace;
}

/**
 * The EventStore on PostgreSQL, shared by any number of replicas: appends queued together commit
 * in one transaction (append_group.ts); lastSeq and erasedSeq follow every replica's commits and
 * erasures (head_watch.ts).
 */
export class PostgresEventStore implements EventStore {
  #pool: PgPool;
  #watch: HeadWatch;
  #waiters = new CommitWaiters();
  #lastSeq = 0;
  #erasedSeq = 0;
  #committer: GroupCommitter;
  #tail = new NotifiedTail();
  /** Notices held while this replica's own group commits: its events may come before theirs. */
  #held: Notice[] = [];
  #closed = false;

  private constructor(url: string, pool: PgPool, trace?: CommitTrace) {
    this.#pool = pool;
    this.#committer = new GroupCommitter(
      pool,
      (head) => {
        if (head !== undefined) this.#advance(head);
        for (const notice of this.#held.splice(0)) this.#takeNotice(notice);
      },
      this.#tail,
      () => this.#watch.othersListening,
      trace,
    );
    this.#watch = new HeadWatch(url, pool, {
      onHead: (seq, erasedSeq) => {
        this.#advance(seq);
        this.noteErased(erasedSeq);
      },
      onNotice: (notice) => {
        // Events before theirs not yet known may be this replica's own, about to be answered:
        // taken then, the tail holds every seq and the follower reads nothing back.
        const gap = "first" in notice && notice.first > this.#lastSeq;
        if (gap && this.#committer.committing) this.#held.push(notice);
        else this.#takeNotice(notice);
      },
      ownProcess: () => this.#committer.writerProcess,
    });
  }

  /** Connects, migrates the schema (under an advisory lock) and reads the log head. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresEventStore> {
    const pool = createPool(
      url,
      options.maxConnections ?? 4,
      (error) =>
        options.warn?.("PostgreSQL connection lost; it will be replaced", { error: String(error) }),
    );
    try {
      await migrate(pool);
      const store = new PostgresEventStore(url, pool, options.trace);
      const head = await readHead(pool);
      store.#lastSeq = head.seq;
      store.#erasedSeq = head.erasedSeq;
      store.#watch.start(head.schema);
      return store;
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
  }

  /** True while another replica listens: this one's commit notices then carry their events. */
  get othersListening(): boolean {
    return this.#watch.othersListening;
  }

  /** The last seq known committed, by this replica or another. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * Every customer deleted up to this seq is erased in the database, by any replica (see
   * EventStore): read with the head, with each page of events, and after this replica's erasures.
   */
  get erasedSeq(): number {
    return this.#erasedSeq;
  }

  /** An erasure committed: every customer deleted up to `seq` is erased (the horizon moves). */
  noteErased(seq: number): void {
    if (seq > this.#erasedSeq) this.#erasedSeq = seq;
  }

  /** Reads every event after `afterSeq` in pages. */
  async replay(onEvent: (event: ReplayedEvent) => void, afterSeq = 0): Promise<number> {
    let count = 0;
    for (let after = afterSeq;;) {
      const page = await this.readFrom(after, 5000);
      if (page.length === 0) return count;
      for (const event of page) onEvent(event);
      count += page.length;
      after = page[page.length - 1].seq;
      this.#advance(after);
    }
  }

  /** Queues the batch for the next group commit. */
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    return this.#committer.append(events, options);
  }

  /** Up to `limit` committed events after `afterSeq`, none past lastSeq at the call. */
  async readFrom(afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    const notified = this.#tail.read(afterSeq, limit, this.#lastSeq, this.#erasedSeq);
    if (notified !== undefined) return notified;
    type Row = Omit<EventRow, "seq"> & {
      seq: string | null;
      first_seq: string;
      erased_seq: string;
    };
    let rows: Row[];
    try {
      ({ rows } = await this.#pool.query(SELECT_EVENTS, [afterSeq, limit, this.#lastSeq]));
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
    const firstSeq = Number(rows[0].first_seq);
    this.noteErased(Number(rows[0].erased_seq));
    if (afterSeq < firstSeq - 1) throw new LogTruncatedError(afterSeq, firstSeq);
    return rows[0].seq === null ? [] : rows.map((row) => replayed(row as EventRow));
  }

  /** Resolves once an event after `afterSeq` is committed by any replica. */
  waitForCommit(afterSeq: number, signal?: AbortSignal): Promise<number> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    return this.#waiters.wait(afterSeq, this.#lastSeq, signal);
  }

  /** False while the database cannot be reached (the last read of the head failed). */
  get reachable(): boolean {
    return this.#watch.reachable;
  }

  /** Tells `listener` each time the database becomes unreachable, or reachable again. */
  onReachable(listener: (reachable: boolean, error?: unknown) => void): void {
    this.#watch.onReachable = listener;
  }

  /** Reads the head now instead of at the next notification or poll. */
  refreshHead(): void {
    this.#watch.check();
  }

  #takeNotice(notice: Notice): void {
    if ("head" in notice) return this.#advance(notice.head);
    this.#tail.add(notice.first, notice.events);
    this.#advance(notice.first + notice.events.length);
  }

  #advance(seq: number): void {
    if (seq <= this.#lastSeq) return;
    this.#lastSeq = seq;
    this.#waiters.notify(seq);
  }

  /** Waits for queued appends, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#committer.close();
    await this.#watch.stop();
    await this.#pool.end().catch(() => {});
    // Last, with no await after it: a caller awaiting close() handles these rejections in time.
    this.#waiters.rejectAll(new StoreClosedError());
  }

  /** Where this replica's group commits spend their time. */
  get commitStats(): CommitStats {
    return this.#committer.stats;
  }

  /** The pool, for maintenance in this backend. */
  get pool(): PgPool {
    return this.#pool;
  }
}
