/**
 * Connections to PostgreSQL through node-postgres (`pg`), configured from DATABASE_URL alone: every
 * option the driver would otherwise look up in a PG* environment variable is given here, so the
 * server's narrow `--allow-env` list suffices (Deno refuses a read outside it).
 */
import pg from "pg";

/** The part of a pg client the store uses. */
export interface PgClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  /** A named statement: parsed once per connection, then only bound and run. */
  query<R = Record<string, unknown>>(prepared: Prepared): Promise<{ rows: R[] }>;
  release?(destroy?: boolean | Error): void;
  end(): Promise<void>;
  on(event: string, listener: (arg: never) => void): void;
}

/** A statement node-postgres prepares under its name on each connection, on first use. */
export interface Prepared {
  name: string;
  text: string;
  values: unknown[];
}

/** The part of a pg pool the store uses. */
export interface PgPool {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  connect(): Promise<PooledClient>;
  /** Callers waiting for a connection. */
  readonly waitingCount: number;
  end(): Promise<void>;
  on(event: string, listener: (error: Error) => void): void;
}

/** A connection taken from a pool, with its server process's id. */
export type PooledClient = PgClient & {
  release(destroy?: boolean | Error): void;
  processID: number | null;
};

/** Limits of every connection. */
export interface ConnectionLimits {
  /** Milliseconds a connection attempt may take. */
  connectTimeoutMs: number;
  /** Milliseconds one statement may run (server side) and one query may wait (client side). */
  queryTimeoutMs: number;
}

const DEFAULT_LIMITS: ConnectionLimits = { connectTimeoutMs: 3000, queryTimeoutMs: 5000 };

/** The driver's options for a postgres:// URL, none left for the driver to read from PG* variables. */
export function connectionOptions(
  url: string,
  limits: ConnectionLimits = DEFAULT_LIMITS,
): Record<string, unknown> {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username) || "postgres";
  const password = decodeURIComponent(parsed.password);
  const params = parsed.searchParams;
  const sslmode = params.get("sslmode");
  const ssl = sslmode === null || sslmode === "disable" || sslmode === "prefer"
    ? false
    : sslmode === "no-verify"
    ? { rejectUnauthorized: false }
    : true;
  const options = [params.get("options"), `-c statement_timeout=${limits.queryTimeoutMs}`]
    .filter((part) => part !== null).join(" ");
  return {
    user,
    // A function: an empty password would otherwise send the driver to PGPASSWORD.
    password: () => password,
    host: decodeURIComponent(parsed.hostname.replace(/^\[|\]$/g, "")) || "localhost",
    port: parsed.port || "5432",
    database: decodeURIComponent(parsed.pathname.slice(1)) || user,
    options,
    ssl,
    sslnegotiation: "postgres",
    client_encoding: "UTF8",
    replication: "false",
    application_name: params.get("application_name") ?? "customer-api",
    connectionTimeoutMillis: limits.connectTimeoutMs,
    query_timeout: limits.queryTimeoutMs + 1000,
    keepAlive: true,
    // Truthy for the parameter parser (which reads PGBINARY otherwise); TextClient turns it off.
    binary: "text",
  };
}

/** A pg Client that always uses the text protocol (see `binary` above). */
class TextClient extends pg.Client {
  constructor(config: Record<string, unknown>) {
    super(config);
    (this as unknown as { binary: boolean }).binary = false;
  }
}

/** A pool of up to `max` connections to `url`; errors of idle connections go to onError. */
export function createPool(
  url: string,
  max: number,
  onError: (error: Error) => void,
  limits?: ConnectionLimits,
): PgPool {
  const pool = new pg.Pool({ ...connectionOptions(url, limits), max, Client: TextClient });
  pool.on("error", onError);
  // A checked-out client whose connection drops emits "error" besides failing its query; with no
  // listener (the pool listens only to idle ones) that event is an uncaught error.
  pool.on("connect", (client: PgClient) => client.on("error", () => {}));
  return pool as PgPool;
}

/** One connection of its own (for LISTEN), outside any pool. */
export async function connectClient(
  url: string,
  limits?: ConnectionLimits,
): Promise<PgClient & { processID: number | null }> {
  const client = new TextClient(connectionOptions(url, limits)) as unknown as PgClient & {
    connect(): Promise<void>;
    processID: number | null;
  };
  await client.connect();
  return client;
}
