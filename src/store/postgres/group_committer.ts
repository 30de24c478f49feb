/**
 * The queue of one replica's appends: those queued while a group commits form the next group,
 * committed in one transaction (append_group.ts) on a connection held from group to group while
 * appends keep coming and nothing else waits for one.
 */
import type { AppendOptions, NewEvent, StoredEvent } from "../event_store.ts";
import { CommitOutcomeUnknownError, StoreError, StoreUnavailableError } from "../store_errors.ts";
import { commitGroup } from "./append_group.ts";
import { CommitStats } from "./commit_stats.ts";
import { type CommitTrace, GroupSteps } from "../commit_trace.ts";
import type { PgPool, PooledClient } from "./pg_connection.ts";
import type { NotifiedTail } from "./notified_tail.ts";
import type { QueuedAppend } from "./queued_append.ts";

type Item = QueuedAppend & { done: () => void; token?: unknown };

/** How long the writer connection is kept after the queue empties. */
const LINGER_MS = 10;

/** A group's outcome: its items' stored or error filled in, and the head after it if it committed. */
interface Committed {
  group: Item[];
  head: number | undefined;
}

/**
 * Commits queued appends group by group; puts the events committed in the tail and tells onTold
 * each group's outcome.
 */
export class GroupCommitter {
  #pool: PgPool;
  #onTold: (head: number | undefined) => void;
  #tail: NotifiedTail;
  #queue: Item[] = [];
  #flushing: Promise<void> | undefined;
  /** The connection group commits go through while appends keep coming. */
  #writer: PooledClient | undefined;
  #linger: ReturnType<typeof setTimeout> | undefined;
  readonly stats = new CommitStats();

  /** Groups sent whose outcome is not told yet. */
  #untold = 0;
  #othersListening: () => boolean;
  #steps: GroupSteps | undefined;

  /**
   * onTold hears after each group's outcome is told: the head it reached, if it committed. While
   * othersListening, each group's notification carries its events, else only the head. With a
   * trace, each group's pool wait and database call are timed for it.
   */
  constructor(
    pool: PgPool,
    onTold: (head: number | undefined) => void,
    tail: NotifiedTail,
    othersListening = () => true,
    trace?: CommitTrace,
  ) {
    this.#pool = pool;
    this.#onTold = onTold;
    this.#tail = tail;
    this.#othersListening = othersListening;
    this.#steps = trace && new GroupSteps(trace, "postgres");
  }

  /** True while a group is sent and its outcome not told: its seqs may precede others' notified. */
  get committing(): boolean {
    return this.#untold > 0;
  }

  /** The server process of the writer connection, while there is one. */
  get writerProcess(): number | null | undefined {
    return this.#writer?.processID;
  }

  /** Queues the batch for the next group commit. */
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]> {
    return new Promise((resolve, reject) => {
      const item: Item = {
        events,
        options,
        done: () => item.stored ? resolve(item.stored) : reject(item.error),
        token: this.#steps?.queued(),
      };
      this.#queue.push(item);
      this.#flushing ??= this.#flush();
    });
  }

  /** Waits for the queued appends (the writer connection goes back to the pool after them). */
  async close(): Promise<void> {
    await this.#flushing;
    clearTimeout(this.#linger);
    this.#yieldWriter();
  }

  /**
   * Commits the queue group by group. A group's outcomes are told once the next group is on its
   * way, so that the database commits while the service answers; and before the head moves, so
   * that the appenders apply their own events before the log follower looks for new ones.
   */
  async #flush(): Promise<void> {
    let committed: Committed | undefined;
    while (this.#queue.length > 0) {
      const next = this.#commit(this.#queue.splice(0));
      if (committed !== undefined) this.#tell(committed);
      committed = await next;
    }
    if (committed !== undefined) this.#tell(committed);
    // Kept a while for the appends these answers bring back: the pool hands a connection out only
    // after a turn of the event loop, which would delay the next group.
    clearTimeout(this.#linger);
    this.#linger = setTimeout(() => this.#flushing === undefined && this.#yieldWriter(), LINGER_MS);
    // Cleared in the same turn as the empty check, so an append made after sees no flush running.
    this.#flushing = undefined;
  }

  /** Gives the writer connection back to the pool. */
  #yieldWriter(): void {
    this.#writer?.release();
    this.#writer = undefined;
  }

  /** Commits one group on the writer connection (sent at once while it is connected). */
  async #commit(group: Item[]): Promise<Committed> {
    this.#untold++;
    // Held from group to group while nothing else waits for a connection of the pool.
    if (this.#pool.waitingCount > 0) this.#yieldWriter();
    const asked = performance.now();
    this.#steps?.begin(asked);
    try {
      const connecting = this.#writer === undefined;
      const writer = this.#writer ?? (this.#writer = await this.#pool.connect());
      const sent = performance.now();
      this.stats.poolWaitSeconds += (sent - asked) / 1000;
      if (connecting) this.#steps?.step("log.pool_wait", asked, sent);
      try {
        const head = await commitGroup(writer, group, this.stats, this.#othersListening());
        this.stats.commitSeconds += (performance.now() - sent) / 1000;
        return { group, head };
      } catch (error) {
        if (this.#writer === writer) this.#writer = undefined;
        writer.release(true);
        // The database answered (an SQLSTATE): the statement rolled back. Otherwise the commit
        // may have happened with its answer lost, and the client must not be told otherwise.
        const answered = error instanceof StoreError || (error as { code?: unknown }).code;
        throw answered ? error : new CommitOutcomeUnknownError(error);
      } finally {
        this.#steps?.step("log.append_group", sent);
      }
    } catch (error) {
      const failure = error instanceof StoreError ? error : new StoreUnavailableError(error);
      for (const item of group) item.error = failure;
      return { group, head: undefined };
    } finally {
      this.#steps?.told(group.map((item) => ({
        token: item.token,
        events: item.events.length,
        lastSeq: item.stored?.at(-1)?.seq,
        error: item.error,
      })));
    }
  }

  #tell({ group, head }: Committed): void {
    this.#untold--;
    for (const item of group) {
      if (item.stored !== undefined) this.#tail.addOwn(item.events, item.stored);
      item.done();
    }
    this.#onTold(head);
  }
}
