import {
  ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type WebhookEndpoint,
  type WebhookStore,
} from "../webhook_store.ts";
import { staleVersion, WebhookState } from "../webhook_state.ts";
import {
  ExpectedVersionConflictError,
  StoreClosedError,
  StoreError,
  StoreUnavailableError,
} from "../store_errors.ts";
import { type ConnectionLimits, createPool, type PgClient, type PgPool } from "./pg_connection.ts";
import { migrate } from "./schema.ts";

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

interface EndpointRow {
  id: string;
  version: number;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  last_seq: string;
  created_at: string;
  updated_at: string;
  secrets: WebhookEndpoint["secrets"];
}

interface AttemptRow {
  endpoint_id: string;
  seq: string;
  event_type: string;
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
}

const SELECT_ENDPOINTS = `SELECT id, version, url, types, description, enabled, disabled_reason,
  last_seq, created_at, updated_at, secrets FROM webhook_endpoints`;

/** The newest attempts of the endpoints in $1, oldest first. */
const SELECT_ATTEMPTS = `SELECT endpoint_id, seq, event_type, attempt, at, status_code, error,
  duration_ms, next_attempt_at FROM (
    SELECT *, row_number() OVER (PARTITION BY endpoint_id ORDER BY n DESC) AS newest
    FROM webhook_attempts WHERE endpoint_id = ANY($1::text[])) a
  WHERE newest <= ${ATTEMPTS_KEPT} ORDER BY endpoint_id, n`;

/** Inserts an endpoint, or writes over the stored one (a WHERE may follow the SET). */
const UPSERT = `INSERT INTO webhook_endpoints AS w (id, version, url, types, description, enabled,
    disabled_reason, last_seq, created_at, updated_at, secrets)
  VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10, $11::jsonb)
  ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, url = EXCLUDED.url,
    types = EXCLUDED.types, description = EXCLUDED.description, enabled = EXCLUDED.enabled,
    disabled_reason = EXCLUDED.disabled_reason,
    last_seq = greatest(w.last_seq, EXCLUDED.last_seq), created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at, secrets = EXCLUDED.secrets`;

/** Writes only over an older version: no row comes back when the stored one is as new or newer. */
const PUT = `${UPSERT}
  WHERE w.version < EXCLUDED.version
  RETURNING last_seq`;

/** A change of a stored endpoint, only over an older version: no row comes back otherwise. */
const CHANGE = `UPDATE webhook_endpoints w SET version = $2, url = $3, types = $4::text[],
    description = $5, enabled = $6, disabled_reason = $7, last_seq = greatest(w.last_seq, $8),
    created_at = $9, updated_at = $10, secrets = $11::jsonb
  WHERE w.id = $1 AND w.version < $2
  RETURNING last_seq`;

/** A copied endpoint as it is, whatever is stored. */
const RESTORE = `${UPSERT}
  RETURNING last_seq`;

/** Deletes an endpoint, only at version $2 unless $2 is null; the deleted row comes back. */
const REMOVE = `DELETE FROM webhook_endpoints
  WHERE id = $1 AND ($2::integer IS NULL OR version = $2::integer) RETURNING version`;

const CHECKPOINTS = `UPDATE webhook_endpoints w SET last_seq = c.seq
  FROM unnest($1::text[], $2::bigint[]) AS c(id, seq)
  WHERE w.id = c.id AND w.last_seq < c.seq`;

/** Attempts in their given order; those of an endpoint removed meanwhile are dropped. */
const INSERT_ATTEMPTS = `INSERT INTO webhook_attempts (endpoint_id, seq, event_type, attempt, at,
    status_code, error, duration_ms, next_attempt_at, sent_by)
  SELECT a.endpoint_id, a.seq, a.event_type, a.attempt, a.at, a.status_code, a.error,
    a.duration_ms, a.next_attempt_at, $2
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(doc, ord),
    jsonb_to_record(x.doc) AS a(endpoint_id text, seq bigint, event_type text, attempt integer,
      at text, status_code integer, error text, duration_ms double precision, next_attempt_at text)
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = a.endpoint_id)
  ORDER BY x.ord`;

/** Drops the attempts of the endpoints in $1 beyond their newest ATTEMPTS_KEPT. */
const TRIM_ATTEMPTS = `DELETE FROM webhook_attempts a USING (
    SELECT endpoint_id, n, row_number() OVER (PARTITION BY endpoint_id ORDER BY n DESC) AS newest
    FROM webhook_attempts WHERE endpoint_id = ANY($1::text[])) old
  WHERE old.newest > ${ATTEMPTS_KEPT} AND a.endpoint_id = old.endpoint_id AND a.n = old.n`;

/** A checkpoint or attempt waiting to be written. */
type LazyWrite =
  | { kind: "checkpoint"; id: string; seq: number; done: () => void; failed: (e: unknown) => void }
  | {
    kind: "attempt";
    id: string;
    attempt: DeliveryAttempt;
    done: () => void;
    failed: (e: unknown) => void;
  };

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
  #lazy: LazyWrite[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;
  /** Counts this process's puts and removes, so a reload racing one does not undo it. */
  #writes = 0;
  readonly #lazyMs: number;
  /** Names this process in the deliveries log. */
  readonly holder: string;

  private constructor(pool: PgPool, holder: string, lazyMs: number) {
    this.#pool = pool;
    this.holder = holder;
    this.#lazyMs = lazyMs;
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
  }

  checkpoint(id: string, lastSeq: number): Promise<void> {
    return this.#later((done, failed) => ({ kind: "checkpoint", id, seq: lastSeq, done, failed }));
  }

  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void> {
    return this.#later((done, failed) => ({ kind: "attempt", id, attempt, done, failed }));
  }

  /**
   * Reads every endpoint again, and with `id` its deliveries log; forgets the removed ones. Waiting
   * checkpoints and attempts are written first, so what this process did is in what is read.
   */
  async refresh(id?: string): Promise<void> {
    if (this.#lazy.length > 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#startFlush();
    }
    await this.#flushing;
    await this.#reload(false, id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#startFlush();
    while (this.#flushing !== undefined) await this.#flushing;
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

  #later(write: (done: () => void, failed: (e: unknown) => void) => LazyWrite): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const written = new Promise<void>((done, failed) => this.#lazy.push(write(done, failed)));
    if (this.#lazyMs === 0) this.#startFlush();
    else {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#startFlush();
      }, this.#lazyMs);
    }
    return written;
  }

  /**
   * Starts writing the waiting checkpoints and attempts unless a flush is under way (it takes
   * them) or none wait. Only a flush with work is kept in #flushing: one started with none would
   * end at once and stay there, and every later write would wait for a flush that never comes.
   */
  #startFlush(): void {
    if (this.#flushing !== undefined || this.#lazy.length === 0) return;
    // Deferred, so its first query runs with #flushing set: after close() only a flush may query.
    this.#flushing = Promise.resolve().then(() => this.#flush()).finally(() => {
      this.#flushing = undefined;
      // Written while the last batch was finishing, after the loop looked.
      if (this.#lazy.length > 0) this.#startFlush();
    });
  }

  /** Writes the waiting checkpoints (the newest per endpoint) and attempts in three statements. */
  async #flush(): Promise<void> {
    while (this.#lazy.length > 0) {
      const batch = this.#lazy.splice(0);
      const checkpoints = new Map<string, number>();
      const attempts: (DeliveryAttempt & { endpoint_id: string })[] = [];
      for (const write of batch) {
        if (write.kind === "checkpoint") {
          checkpoints.set(write.id, Math.max(checkpoints.get(write.id) ?? 0, write.seq));
        } else attempts.push({ endpoint_id: write.id, ...write.attempt });
      }
      try {
        if (checkpoints.size > 0) {
          await this.#query(CHECKPOINTS, [[...checkpoints.keys()], [...checkpoints.values()]]);
        }
        if (attempts.length > 0) {
          const ids = [...new Set(attempts.map((a) => a.endpoint_id))];
          await this.#query(INSERT_ATTEMPTS, [JSON.stringify(attempts), this.holder]);
          await this.#query(TRIM_ATTEMPTS, [ids]);
        }
        for (const [id, seq] of checkpoints) this.#state.checkpoint(id, seq);
        for (const { endpoint_id, ...attempt } of attempts) {
          this.#state.recordAttempt(endpoint_id, attempt);
        }
        for (const write of batch) write.done();
      } catch (error) {
        for (const write of batch) write.failed(error);
      }
    }
  }

  async #query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }> {
    if (this.#closed && this.#flushing === undefined) throw new StoreClosedError();
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      throw error instanceof StoreError ? error : new StoreUnavailableError(error);
    }
  }
}

/**
 * Writes endpoints with their deliveries logs (newest first, as attempts() gives them) through
 * `client`, e.g. in the transaction of `deno task migrate`'s copy; attempts are marked sent by
 * `sentBy`.
 */
export async function insertWebhooks(
  client: PgClient,
  endpoints: readonly WebhookEndpoint[],
  attemptsOf: (id: string) => DeliveryAttempt[],
  sentBy: string,
): Promise<void> {
  for (const endpoint of endpoints) {
    await client.query(PUT, putValues(endpoint));
    const attempts = attemptsOf(endpoint.id).reverse().map((attempt) => ({
      endpoint_id: endpoint.id,
      ...attempt,
    }));
    if (attempts.length > 0) {
      await client.query(INSERT_ATTEMPTS, [JSON.stringify(attempts), sentBy]);
    }
  }
}

function putValues(endpoint: WebhookEndpoint): unknown[] {
  return [
    endpoint.id,
    endpoint.version,
    endpoint.url,
    endpoint.types,
    endpoint.description,
    endpoint.enabled,
    endpoint.disabled_reason,
    endpoint.last_seq,
    endpoint.created_at,
    endpoint.updated_at,
    JSON.stringify(endpoint.secrets),
  ];
}

function endpointOf(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    last_seq: Number(row.last_seq),
    created_at: row.created_at,
    updated_at: row.updated_at,
    version: row.version,
    secrets: row.secrets,
  };
}

function attemptOf(row: AttemptRow): DeliveryAttempt {
  return {
    seq: Number(row.seq),
    event_type: row.event_type,
    attempt: row.attempt,
    at: row.at,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    next_attempt_at: row.next_attempt_at,
  };
}
