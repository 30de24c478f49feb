import { type DeliveryAttempt, type WebhookEndpoint, type WebhookStore } from "../webhook_store.ts";
import { staleVersion, WebhookState } from "../webhook_state.ts";
import {
  ExpectedVersionConflictError,
  StoreClosedError,
  StoreError,
  StoreUnavailableError,
} from "../store_errors.ts";
import { type ConnectionLimits, createPool, type PgPool } from "./pg_connection.ts";
import { migrate } from "./schema.ts";
import { LazyWrites } from "./lazy_writes.ts";
import { AttemptTrims } from "./attempt_trims.ts";
import {
  attemptOf,
  type AttemptRow,
  CHANGE,
  CHECKPOINTS,
  endpointOf,
  type EndpointRow,
  INSERT_ATTEMPTS,
  newestAttempts,
  PUT,
  putValues,
  REMOVE,
  RESTORE,
  SELECT_ATTEMPTS,
  SELECT_ENDPOINTS,
  TRIM_ATTEMPTS,
} from "./webhook_rows.ts";

/** Settings of a PostgreSQL webhook store. */
export interface PostgresWebhookOptions {
  /** Names this process in the deliveries log's sent_by and in delivery leases. */
  holder?: string;
  /** Told when a connection of the pool is lost (the pool replaces it). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
  /** Checkpoints and attempts wait up to this long (default 50 ms) to share a round trip. */
  lazyWriteMs?: number;
  /** Limits of each connection; queries are short, so they fail fast when the database is gone. */
  limits?: ConnectionLimits;
}

const LIMITS: ConnectionLimits = { connectTimeoutMs: 2000, queryTimeoutMs: 2000 };

/** A checkpoint or attempt waiting to be written. */
type LazyWrite =
  | { kind: "checkpoint"; id: string; seq: number }
  | { kind: "attempt"; id: string; attempt: DeliveryAttempt };

/**
 * Webhook endpoints, checkpoints and deliveries logs in PostgreSQL, shared by every replica. Reads
 * answer from a copy in memory (the dispatcher reads an endpoint per event); refresh() reads the
 * tables again, which the API does before each request and the delivery leases every tick, so
 * what another replica wrote is seen. Endpoint changes are written at once; checkpoints and
 * attempts wait up to 50 ms to share a round trip. Every failure to reach the database rejects
 * with StoreUnavailableError.
 */
export class PostgresWebhookStore implements WebhookStore {
  #pool: PgPool;
  #state = new WebhookState();
  #lazy: LazyWrites<LazyWrite>;
  #closed = false;
  /** Counts this process's puts and removes, so a reload racing one does not undo it. */
  #writes = 0;
  #trims = new AttemptTrims();
  /** Names this process in the deliveries log. */
  readonly holder: string;

  private constructor(pool: PgPool, holder: string, lazyMs: number) {
    this.#pool = pool;
    this.holder = holder;
    this.#lazy = new LazyWrites(lazyMs, (batch) => this.#writeLazy(batch));
  }

  /** Connects (a small pool of its own), migrates the schema and reads every endpoint and log. */
  static async open(
    url: string,
    options: PostgresWebhookOptions = {},
  ): Promise<PostgresWebhookStore> {
    const pool = createPool(
      url,
      3,
      (error) =>
        options.warn?.("PostgreSQL connection lost; it will be replaced", { error: String(error) }),
      options.limits ?? LIMITS,
    );
    try {
      await migrate(pool);
      const holder = options.holder ?? `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
      const store = new PostgresWebhookStore(pool, holder, options.lazyWriteMs ?? 50);
      await store.#reload(true);
      return store;
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
  }

  /** The pool, for the delivery leases. */
  get pool(): PgPool {
    return this.#pool;
  }

  list(): WebhookEndpoint[] {
    return this.#state.list();
  }

  get(id: string): WebhookEndpoint | undefined {
    return this.#state.get(id);
  }

  attempts(id: string): DeliveryAttempt[] {
    return this.#state.attempts(id);
  }

  async put(endpoint: WebhookEndpoint): Promise<void> {
    // A change only updates a stored row: one another replica removed stays removed.
    const sql = endpoint.version === 1 ? PUT : CHANGE;
    const { rows } = await this.#query<{ last_seq: string }>(sql, putValues(endpoint));
    if (rows.length === 0) {
      const stored = await this.#query<{ version: number }>(
        "SELECT version FROM webhook_endpoints WHERE id = $1",
        [endpoint.id],
      );
      throw staleVersion(endpoint, stored.rows[0]?.version) ??
        // Removed between the two statements: the create lost to the remove.
        new ExpectedVersionConflictError(endpoint.id, endpoint.version - 1, 0);
    }
    this.#writes++;
    this.#state.set({ ...endpoint, last_seq: Number(rows[0].last_seq) });
  }

  async restore(endpoint: WebhookEndpoint): Promise<void> {
    const { rows } = await this.#query<{ last_seq: string }>(RESTORE, putValues(endpoint));
    this.#writes++;
    this.#state.set({ ...endpoint, last_seq: Number(rows[0].last_seq) });
  }

  async remove(id: string, version?: number): Promise<void> {
    // The version is checked by the delete itself: a change another replica committed since this
    // one read the endpoint (or one waiting on the row's lock) makes it delete nothing.
    const { rows } = await this.#query<{ version: number }>(REMOVE, [id, version ?? null]);
    if (version !== undefined && rows.length === 0) {
      const stored = await this.#query<{ version: number }>(
        "SELECT version FROM webhook_endpoints WHERE id = $1",
        [id],
      );
      throw new ExpectedVersionConflictError(id, version, stored.rows[0]?.version ?? 0);
    }
    this.#writes++;
    this.#state.remove(id);
    this.#trims.forget(id);
  }

  checkpoint(id: string, lastSeq: number): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    return this.#lazy.add({ kind: "checkpoint", id, seq: lastSeq });
  }

  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    return this.#lazy.add({ kind: "attempt", id, attempt });
  }

  /**
   * Reads every endpoint again, and with `id` its deliveries log; forgets the removed ones. Waiting
   * checkpoints and attempts are written first, so what this process did is in what is read.
   */
  async refresh(id?: string): Promise<void> {
    await this.#lazy.flush();
    await this.#reload(false, id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#lazy.flush();
    await this.#pool.end().catch(() => {});
  }

  async #reload(allAttempts: boolean, id?: string): Promise<void> {
    const writes = this.#writes;
    const { rows } = await this.#query<EndpointRow>(SELECT_ENDPOINTS);
    // A put or remove of this process resolved meanwhile: what was read may predate it.
    const raced = writes !== this.#writes;
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.id);
      const stored = this.#state.get(row.id);
      const endpoint = endpointOf(row);
      // A copy read before a put of this process resolved must not take the put back.
      if (raced && stored === undefined) continue;
      if (stored === undefined || stored.version <= endpoint.version) this.#state.set(endpoint);
    }
    for (const endpoint of raced ? [] : this.#state.list()) {
      if (!seen.has(endpoint.id)) this.#state.remove(endpoint.id);
    }
    const ids = allAttempts ? [...seen] : id !== undefined && seen.has(id) ? [id] : [];
    if (ids.length === 0) return;
    const attempts = await this.#query<AttemptRow>(SELECT_ATTEMPTS, [ids]);
    const logs = new Map<string, DeliveryAttempt[]>(ids.map((id) => [id, []]));
    for (const row of attempts.rows) logs.get(row.endpoint_id)?.push(attemptOf(row));
    for (const [id, log] of logs) this.#state.setAttempts(id, log);
  }

  /** Writes the waiting checkpoints (the newest per endpoint) and attempts in three statements. */
  async #writeLazy(batch: LazyWrite[]): Promise<void> {
    const checkpoints = new Map<string, number>();
    const attempts: (DeliveryAttempt & { endpoint_id: string })[] = [];
    for (const write of batch) {
      if (write.kind === "checkpoint") {
        checkpoints.set(write.id, Math.max(checkpoints.get(write.id) ?? 0, write.seq));
      } else attempts.push({ endpoint_id: write.id, ...write.attempt });
    }
    if (checkpoints.size > 0) {
      await this.#query(CHECKPOINTS, [[...checkpoints.keys()], [...checkpoints.values()]]);
    }
    if (attempts.length > 0) {
      const { rows } = await this.#query<{ endpoint_id: string; n: string }>(INSERT_ATTEMPTS, [
        JSON.stringify(newestAttempts(attempts)),
        this.holder,
      ]);
      const trims = this.#trims.inserted(rows);
      if (trims.length > 0) {
        await this.#query(TRIM_ATTEMPTS, [
          trims.map((trim) => trim.id),
          trims.map((trim) => trim.after),
          trims.map((trim) => trim.upto),
        ]);
        this.#trims.done(trims);
      }
    }
    for (const [id, seq] of checkpoints) this.#state.checkpoint(id, seq);
    for (const { endpoint_id, ...attempt } of attempts) {
      this.#state.recordAttempt(endpoint_id, attempt);
    }
  }

  async #query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }> {
    // After close() only the last batch of lazy writes may query.
    if (this.#closed && !this.#lazy.busy) throw new StoreClosedError();
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      throw error instanceof StoreError ? error : new StoreUnavailableError(error);
    }
  }
}
