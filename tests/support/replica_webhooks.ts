/**
 * Webhook delivery across replicas, seen from outside: who holds an endpoint's lease, the attempts
 * each replica recorded (sampled from the deliveries table before it is trimmed), and the checks
 * on what a receiver got: every event, verified, in seq order apart from redeliveries, and no two
 * replicas sending to one endpoint at the same time.
 */
import assert from "node:assert/strict";
import type { TestSchema } from "./postgres.ts";
import type { ReplicaSet } from "./replica_set.ts";
import { type Received, verify } from "./webhook_receiver.ts";

/** The replica index whose process holds the endpoint's lease now, or undefined. */
export async function leaseHolder(
  schema: TestSchema,
  set: ReplicaSet,
  endpointId: string,
): Promise<number | undefined> {
  const rows = await schema.query(
    `SELECT holder FROM ${schema.name}.webhook_leases
     WHERE endpoint_id = '${endpointId}' AND expires_at > now()`,
  );
  const holder = rows[0]?.holder as string | undefined;
  if (holder === undefined) return undefined;
  const pid = Number(holder.split("-")[0]);
  return set.replicas.find((replica) => replica.server?.pid === pid)?.index;
}

/**
 * The replica index that holds the endpoint's lease and made its newest recorded attempt (so it
 * is the one delivering now), or undefined while the two disagree or nothing was sent yet.
 */
export async function deliveringReplica(
  schema: TestSchema,
  set: ReplicaSet,
  endpointId: string,
): Promise<number | undefined> {
  const holder = await leaseHolder(schema, set, endpointId);
  const [newest] = await schema.query(
    `SELECT sent_by FROM ${schema.name}.webhook_attempts WHERE endpoint_id = '${endpointId}'
     ORDER BY n DESC LIMIT 1`,
  );
  const pid = Number(String(newest?.sent_by ?? "").split("-")[0]);
  return holder !== undefined && set.replicas[holder].server?.pid === pid ? holder : undefined;
}

/** One attempt as the deliveries table holds it, with the replica that made it. */
export interface SentAttempt {
  n: number;
  seq: number;
  sentBy: string;
  /** When it started and how long it took (ms). */
  at: number;
  durationMs: number;
}

/** Reads the deliveries table every 100 ms, keeping every row seen (the table keeps only 100+). */
export function sampleAttempts(schema: TestSchema, endpointId: string) {
  const seen = new Map<number, SentAttempt>();
  let stopped = false;
  const read = async () => {
    const rows = await schema.query(
      `SELECT n, seq, sent_by, at, duration_ms FROM ${schema.name}.webhook_attempts
       WHERE endpoint_id = '${endpointId}'`,
    );
    for (const row of rows) {
      seen.set(Number(row.n), {
        n: Number(row.n),
        seq: Number(row.seq),
        sentBy: String(row.sent_by),
        at: Date.parse(String(row.at)),
        durationMs: Number(row.duration_ms),
      });
    }
  };
  // A read that times out on a loaded machine is tried again at the next tick instead of ending the
  // test: rows the table trimmed meanwhile are then not seen, which only gives the checks less to
  // judge. The last read, which the caller waits for, has three tries.
  const loop = (async () => {
    while (!stopped) {
      await read().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let tries = 1;; tries++) {
      try {
        return await read();
      } catch (error) {
        if (tries === 3) throw error;
      }
    }
  })();
  return {
    /**
     * Stops sampling once the attempt that delivered `lastSeq` is recorded (attempts are written
     * in batches, after the receiver got them); resolves with every attempt seen, in the order
     * they were recorded.
     */
    stop: async (lastSeq?: number): Promise<SentAttempt[]> => {
      const until = Date.now() + 5000;
      while (
        lastSeq !== undefined && !stopped && Date.now() < until &&
        ![...seen.values()].some((a) => a.seq === lastSeq)
      ) await new Promise((resolve) => setTimeout(resolve, 50));
      stopped = true;
      await loop;
      return [...seen.values()].sort((a, b) => a.n - b.n);
    },
  };
}

/**
 * Attempts of different replicas never overlap in time. (One replica may go back in seq: after
 * losing and taking a lease again it starts over at the checkpoint, redelivering.)
 */
export function assertOneSenderAtATime(attempts: SentAttempt[]): void {
  const byTime = [...attempts].sort((a, b) => a.at - b.at);
  for (let i = 1; i < byTime.length; i++) {
    const before = byTime[i - 1];
    const after = byTime[i];
    if (before.sentBy === after.sentBy) continue;
    // `at` is whole milliseconds: 1 ms of slack for the rounding.
    assert.ok(
      before.at + before.durationMs <= after.at + 1,
      `${before.sentBy} sent seq ${before.seq} until ${before.at + before.durationMs}, ` +
        `while ${after.sentBy} sent seq ${after.seq} from ${after.at}`,
    );
  }
}

/**
 * What the receiver got for one endpoint: each delivery verified with its secret; the seqs come in
 * order, a seq either the next one or one received before (a redelivery after a failover); and
 * every seq in `expected` arrived. Returns how many deliveries were redeliveries.
 */
export function assertDeliveredInOrder(
  received: Received[],
  secret: string,
  expected: number[],
): number {
  const want = new Set(expected);
  const got = new Set<number>();
  let newest = 0;
  let repeats = 0;
  for (const delivery of received) {
    verify(delivery, secret);
    const seq = Number(delivery.event.seq);
    assert.equal(delivery.id, `evt_${seq}`);
    if (got.has(seq)) {
      repeats++;
      continue;
    }
    assert.ok(seq > newest, `seq ${seq} arrived first after ${newest}`);
    // Nothing the endpoint should get is skipped.
    for (const missing of expected) {
      if (missing > newest && missing < seq) assert.fail(`seq ${missing} skipped before ${seq}`);
    }
    got.add(seq);
    newest = seq;
  }
  const lost = [...want].filter((seq) => !got.has(seq));
  assert.deepEqual(lost, [], `${lost.length} events never delivered`);
  return repeats;
}
