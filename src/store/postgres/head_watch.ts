/**
 * Follows the log head of other replicas: LISTEN wakes it on every commit, and a poll covers the
 * notifications lost while the listening connection was down (it reconnects with backoff).
 */
import { connectClient, type PgClient, type PgPool } from "./pg_connection.ts";
import { LOG_CHANNEL } from "./queued_append.ts";

/** The committed log head and erasure horizon, read in one statement. */
export async function readHead(pool: PgPool): Promise<{ seq: number; erasedSeq: number }> {
  const { rows } = await pool.query<{ seq: string; erased_seq: string }>(
    "SELECT h.seq, s.erased_seq FROM log_head h, log_start s",
  );
  return { seq: Number(rows[0].seq), erasedSeq: Number(rows[0].erased_seq) };
}

/**
 * Calls onHead with the committed head and erasure horizon each time either may have moved (an
 * erasure notifies the same channel as a commit), except after commits of the `ownProcess`
 * connection (the caller's writer, whose head it knows); stop() ends it.
 */
export class HeadWatch {
  #url: string;
  #pool: PgPool;
  #onHead: (seq: number, erasedSeq: number) => void;
  #pollMs: number;
  #ownProcess: () => number | null | undefined;
  #listener: PgClient | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;
  #reading = false;
  #again = false;
  /** False once a read of the head failed, until one succeeds. */
  reachable = true;

  constructor(
    url: string,
    pool: PgPool,
    onHead: (seq: number, erasedSeq: number) => void,
    ownProcess: () => number | null | undefined = () => undefined,
    pollMs = 500,
  ) {
    this.#ownProcess = ownProcess;
    this.#url = url;
    this.#pool = pool;
    this.#onHead = onHead;
    this.#pollMs = pollMs;
  }

  /** Starts listening and polling. */
  start(): void {
    void this.#listen(0);
    this.#timer = setInterval(() => this.check(), this.#pollMs);
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
        this.reachable = true;
        this.#onHead(head.seq, head.erasedSeq);
      })
      .catch(() => (this.reachable = false)) // The poll retries; writes report the outage.
      .finally(() => {
        this.#reading = false;
        if (this.#again) {
          this.#again = false;
          this.check();
        }
      });
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
      // The store's own commits moved its head already.
      client.on("notification", (message: { processId: number }) => {
        if (message.processId !== this.#ownProcess()) this.check();
      });
      await client.query(`LISTEN ${LOG_CHANNEL}`);
      this.#listener = client;
      if (this.#stopped) await client.end();
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
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => {});
  }
}
