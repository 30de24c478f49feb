/**
 * Follows the log head of other replicas: LISTEN wakes it on every commit, and a poll covers the
 * notifications lost while the listening connection was down (it reconnects with backoff). A
 * hello every second tells the others that a replica listens (see othersListening).
 */
import { connectClient, type PgClient, type PgPool } from "./pg_connection.ts";
import { helloPayload, type Notice, parseNotice } from "./notified_tail.ts";
import { LOG_CHANNEL } from "./queued_append.ts";

/** How often a listening replica says hello. */
const HELLO_MS = 1000;
/** How long after another replica's last hello this one still counts it as listening. */
const HEARD_MS = 3 * HELLO_MS;

/** The committed log head and erasure horizon, read in one statement, and the log's schema. */
export async function readHead(
  pool: PgPool,
): Promise<{ seq: number; erasedSeq: number; schema: string }> {
  const { rows } = await pool.query<{ seq: string; erased_seq: string; schema: string }>(
    "SELECT h.seq, s.erased_seq, current_schema() AS schema FROM log_head h, log_start s",
  );
  return {
    seq: Number(rows[0].seq),
    erasedSeq: Number(rows[0].erased_seq),
    schema: rows[0].schema,
  };
}

/** What a HeadWatch tells, and whose commits it need not tell. */
export interface HeadListener {
  /** The committed head and erasure horizon, each time either may have moved. */
  onHead(seq: number, erasedSeq: number): void;
  /** A commit of this log, as its notification tells it (its events, or its head). */
  onNotice(notice: Notice): void;
  /** The connection whose commits the caller knows already (its writer). */
  ownProcess(): number | null | undefined;
}

/**
 * Tells a listener of each commit of this log by another connection: from the notification when
 * it says which log it is about, else (an erasure, a commit of an older server) by reading the
 * head and erasure horizon; stop() ends it.
 */
export class HeadWatch {
  #url: string;
  #pool: PgPool;
  #subscriber: HeadListener;
  #pollMs: number;
  /** This log's schema (notifications name theirs). */
  #schema: string | undefined;
  #listener: PgClient | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;
  #reading = false;
  #again = false;
  #reachable = true;
  #hello: ReturnType<typeof setInterval> | undefined;
  /** When another replica of this log last said hello (performance.now()). */
  #heardAt = -Infinity;
  /** Told each time reachable changes, with the failure when it became false. */
  onReachable: (reachable: boolean, error?: unknown) => void = () => {};

  constructor(
    url: string,
    pool: PgPool,
    listener: HeadListener,
    pollMs = 500,
  ) {
    this.#url = url;
    this.#pool = pool;
    this.#subscriber = listener;
    this.#pollMs = pollMs;
  }

  /** Starts listening and polling, for the log in `schema` (as readHead read it). */
  start(schema: string): void {
    this.#schema = schema;
    void this.#listen(0);
    this.#timer = setInterval(() => this.check(), this.#pollMs);
    this.#hello = setInterval(() => this.#sayHello(), HELLO_MS);
  }

  /**
   * True while another replica of this log has said hello lately: only then need this one's
   * commit notices carry their events (a lone replica's carry the head, which costs far less).
   */
  get othersListening(): boolean {
    return performance.now() - this.#heardAt < HEARD_MS;
  }

  #sayHello(): void {
    const listener = this.#listener;
    if (listener === undefined || this.#schema === undefined) return;
    listener.query("SELECT pg_notify($1, $2)", [LOG_CHANNEL, helloPayload(this.#schema)])
      .catch(() => {}); // A lost connection is replaced; the next hello goes on the new one.
  }

  /** Reads the head now (coalesced: at most one read in flight, one more queued). */
  check(): void {
    if (this.#stopped) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    readHead(this.#pool)
      .then((head) => {
        this.#setReachable(true);
        this.#subscriber.onHead(head.seq, head.erasedSeq);
      })
      // The poll retries; writes report the outage.
      .catch((error) => this.#setReachable(false, error))
      .finally(() => {
        this.#reading = false;
        if (this.#again) {
          this.#again = false;
          this.check();
        }
      });
  }

  /** False once a read of the head failed, until one succeeds. */
  get reachable(): boolean {
    return this.#reachable;
  }

  #setReachable(reachable: boolean, error?: unknown): void {
    if (reachable === this.#reachable) return;
    this.#reachable = reachable;
    this.onReachable(reachable, error);
  }

  async #listen(failures: number): Promise<void> {
    if (this.#stopped) return;
    try {
      const client = await connectClient(this.#url);
      const lost = () => {
        if (this.#listener !== client) return;
        this.#listener = undefined;
        client.end().catch(() => {});
        setTimeout(() => this.#listen(0), 100);
      };
      client.on("error", lost);
      client.on("end", lost);
      client.on("notification", (message: { processId: number; payload?: string }) => {
        const from = message.processId;
        if (from === this.#subscriber.ownProcess() || from === client.processID) return;
        const notice = parseNotice(message.payload);
        if (notice === undefined) this.check();
        else if (notice.schema !== this.#schema) return;
        else if (!("listening" in notice)) this.#subscriber.onNotice(notice);
        else {
          // A replica just started: answered at once, it need not wait a second to hear of this one.
          if (!this.othersListening) this.#sayHello();
          this.#heardAt = performance.now();
        }
      });
      await client.query(`LISTEN ${LOG_CHANNEL}`).catch((error) => {
        client.end().catch(() => {});
        throw error;
      });
      this.#listener = client;
      if (this.#stopped) {
        await client.end();
        return;
      }
      this.#sayHello();
      this.check(); // Commits made while not listening.
    } catch {
      const delay = Math.min(5000, 100 * 2 ** failures);
      setTimeout(() => this.#listen(failures + 1), delay);
    }
  }

  /** Stops listening and polling. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    clearInterval(this.#hello);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => {});
  }
}
