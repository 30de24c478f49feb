/**
 * Issue 15's acceptance: three real replicas on one PostgreSQL schema, 32 concurrent writers over
 * all of them for 20 s, one replica killed with SIGKILL and restarted, another cut from the
 * database for a few seconds; afterwards every replica holds every acknowledged write exactly once,
 * and a webhook endpoint registered before the load got every event, verified and in order, though
 * the replica delivering it was the one killed.
 */
import assert from "node:assert/strict";
import { makeToken } from "../support/tokens.ts";
import { createTestSchema, type TestSchema } from "../support/postgres.ts";
import { ReplicaSet } from "../support/replica_set.ts";
import { runWriters } from "../support/replica_workload.ts";
import { WriteLedger } from "../support/write_ledger.ts";
import {
  assertAckedInFeed,
  assertEmailsUnique,
  assertFeedGapFree,
  assertHistories,
  assertIdempotentReplays,
  assertRaces,
  type FeedEvent,
  liveCustomers,
  readFeed,
} from "../support/replica_audit.ts";
import {
  assertDeliveredInOrder,
  assertOneSenderAtATime,
  leaseHolder,
  sampleAttempts,
  type SentAttempt,
} from "../support/replica_webhooks.ts";
import { Receiver } from "../support/webhook_receiver.ts";

const WRITERS = 32;
const RUN_MS = 20_000;
const KILL_AT_MS = 4_000;
const CUT_AT_MS = 11_000;
const CUT_FOR_MS = 3_000;
const MANAGE = "customers:read customers:write webhooks:manage";
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_SCHEDULE: "200ms,400ms,800ms,1s,1s,1s,1s,1s",
  WEBHOOK_TIMEOUT: "2s",
};

/** Calls `probe` until it returns true or `ms` pass. */
async function eventually(probe: () => Promise<boolean>, what: string, ms = 15_000) {
  const until = performance.now() + ms;
  while (!(await probe())) {
    if (performance.now() > until) throw new Error(`Not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

/** kill -9 of a replica, then its restart as the README says; load goes on meanwhile. */
async function killAndRestart(set: ReplicaSet, index: number, at: number): Promise<void> {
  await sleepUntil(at);
  await set.kill(index);
  await set.restart(index);
}

/** A replica cut from the database: writes 503, reads 200, /readyz 503; then it recovers. */
async function cutAndRestore(
  set: ReplicaSet,
  index: number,
  at: number,
  knownId: string,
): Promise<void> {
  await sleepUntil(at);
  const replica = set.replicas[index];
  const api = replica.api!;
  replica.proxy.cut();
  const until = performance.now() + CUT_FOR_MS;
  const refused = await api.post("/api/customers", { json: { name: "Cut", email: "cut@x.test" } });
  assert.equal(refused.status, 503, refused.text);
  assert.match(String(refused.body.type), /storage-unavailable$/);
  assert.equal(refused.headers.get("retry-after"), "1");
  const read = await api.get(`/api/customers/${knownId}`);
  assert.equal(read.status, 200, read.text);
  await eventually(async () => (await api.get("/readyz")).status === 503, "/readyz 503", 5_000);
  await sleepUntil(until);
  replica.proxy.restore();
  await eventually(async () => (await api.get("/readyz")).status === 200, "/readyz 200 again");
  await eventually(
    async () =>
      (await api.post("/api/customers", { json: { name: "Back", email: `back-${at}@x.test` } }))
        .status === 201,
    "a create on the cut replica succeeds again",
  );
}

/** How many events of deleted customers erasure has yet to delete (the delete itself stays). */
async function unerased(schema: TestSchema): Promise<number> {
  const [{ n }] = await schema.query(
    `SELECT count(*) AS n FROM ${schema.name}.events e WHERE e.type <> 'customer.deleted'
     AND EXISTS (SELECT 1 FROM ${schema.name}.events d
       WHERE d.customer_id = e.customer_id AND d.type = 'customer.deleted')`,
  );
  return Number(n);
}

/** The log head committed in the database. */
async function committedHead(schema: TestSchema): Promise<number> {
  return Number((await schema.query(`SELECT seq FROM ${schema.name}.log_head`))[0].seq);
}

/**
 * Waits until the erasure horizon has passed the last delete: erasure runs just after each delete,
 * in the background, so one committing while the replicas' feeds are read would make them differ
 * by when each read. Every replica reads the horizon with the head.
 */
async function erasureDone(schema: TestSchema): Promise<void> {
  const [{ last }] = await schema.query(
    `SELECT coalesce(max(seq), 0) AS last FROM ${schema.name}.events WHERE type = 'customer.deleted'`,
  );
  await eventually(async () => {
    const [{ erased_seq }] = await schema.query(`SELECT erased_seq FROM ${schema.name}.log_start`);
    return Number(erased_seq) >= Number(last);
  }, `the erasure of the last delete (seq ${last})`);
}

/** The webhook endpoint registered before the load, and what delivering it left behind. */
interface WebhookRun {
  id: string;
  secret: string;
  /** Events after this seq are the endpoint's. */
  lastSeq: number;
  receiver: Receiver;
  /** Every attempt recorded in the deliveries table during the run (up to `lastSeq`'s). */
  attempts: (lastSeq?: number) => Promise<SentAttempt[]>;
  /** The replica that delivered it before the kill (the one killed). */
  killedSender: string;
}

/** What the checks after the run are given. */
interface FinishedRun {
  set: ReplicaSet;
  webhook: WebhookRun;
  ledger: WriteLedger;
  /** The log head committed in the database once the writers stopped. */
  head: number;
  /** The feed as replica 0 serves it (every replica's is checked equal to it). */
  feed: FeedEvent[];
}

/** The feed: the same on every replica, gap-free, holding every acknowledged write once. */
async function auditFeed(set: ReplicaSet, ledger: WriteLedger, head: number): Promise<FeedEvent[]> {
  const feeds = await Promise.all(set.replicas.map((r) => readFeed(r.api!, head)));
  for (const feed of feeds.slice(1)) assert.deepEqual(feed, feeds[0], "feeds differ");
  assertFeedGapFree(feeds[0], head);
  assertAckedInFeed(feeds[0], ledger.acked);
  return feeds[0];
}

/** Every replica lists the customers the feed leads to, emails unique, histories complete. */
async function auditCustomers({ set, ledger, feed }: FinishedRun): Promise<void> {
  assertRaces(ledger, feed);
  assertIdempotentReplays(ledger);
  const expected = liveCustomers(feed);
  assertEmailsUnique(expected);
  for (const replica of set.replicas) {
    const listed = await replica.api!.listAll({}, 1000);
    listed.sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(listed, expected, `customers on replica ${replica.index}`);
    await assertHistories(replica.api!, feed, 200);
  }
}

/**
 * Webhooks fail over: every event after the endpoint was registered (so every acknowledged write)
 * arrived with a valid signature, in seq order apart from redeliveries; the killed replica sent
 * the first ones, others the rest, never two at a time.
 */
async function auditWebhooks({ webhook, feed }: FinishedRun): Promise<void> {
  const expected = feed.filter((event) => event.seq > webhook.lastSeq).map((event) => event.seq);
  await webhook.receiver.waitFor(
    (got) => {
      const seqs = new Set(got.map((r) => r.event.seq));
      return expected.every((seq) => seqs.has(seq));
    },
    20_000,
  ).catch(async (error) => {
    // What was delivered when, by whom: where delivery stalled.
    const got = webhook.receiver.received;
    const first = got[0]?.at ?? 0;
    const perSecond = new Map<number, number>();
    for (const r of got) {
      const s = Math.floor((r.at - first) / 1000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    const attempts = await webhook.attempts();
    const bySender = new Map<string, [number, number, number]>();
    for (const a of attempts) {
      const [n, from, to] = bySender.get(a.sentBy) ?? [0, a.at, a.at];
      bySender.set(a.sentBy, [n + 1, Math.min(from, a.at) - first, Math.max(to, a.at) - first]);
    }
    console.log(`deliveries per second: ${JSON.stringify([...perSecond])}`);
    console.log(`attempts by sender [count, first ms, last ms]: ${JSON.stringify([...bySender])}`);
    console.log(`expected ${expected.length} up to ${expected.at(-1)}; got ${got.length}`);
    throw new Error(String(error).slice(0, 300));
  });
  const repeats = assertDeliveredInOrder(webhook.receiver.received, webhook.secret, expected);
  const attempts = await webhook.attempts(expected.at(-1));
  assertOneSenderAtATime(attempts);
  const senders = [...new Set(attempts.map((a) => a.sentBy))];
  // The killed replica delivered, and others after it (a slow tick may hand over earlier too).
  assert.ok(senders.includes(webhook.killedSender), `${webhook.killedSender} never delivered`);
  assert.ok(senders.length >= 2, `only ${senders.join()} delivered`);
  console.log(
    `webhooks: ${expected.length} events delivered, ${repeats} redelivered, senders ${senders}`,
  );
}

/** The checks made once the feed is audited, each given the finished run. */
const AUDITS: ((run: FinishedRun) => Promise<void>)[] = [auditWebhooks, auditCustomers];

Deno.test("three replicas under 32 writers, a kill -9 and a cut database connection: every acknowledged write is on every replica exactly once", async () => {
  const schema = await createTestSchema();
  const receiver = new Receiver();
  let sampler: ReturnType<typeof sampleAttempts> | undefined;
  const set = await ReplicaSet.start(
    3,
    schema.url,
    await makeToken({ scope: MANAGE }),
    WEBHOOK_ENV,
  );
  try {
    const ledger = new WriteLedger();
    const first = await set.replicas[0].api!.create({ name: "First", email: "first@x.test" });
    const hook = await set.replicas[2].api!.post("/api/webhooks", {
      json: { url: receiver.url() },
    });
    assert.equal(hook.status, 201, hook.text);
    // The replica delivering the endpoint is the one killed; another one is cut.
    let sender: number | undefined;
    await eventually(
      async () => (sender = await leaseHolder(schema, set, hook.body.id)) !== undefined,
      "a replica delivers the webhook endpoint",
    );
    const killedSender = String(
      (await schema.query(
        `SELECT holder FROM ${schema.name}.webhook_leases WHERE endpoint_id = '${hook.body.id}'`,
      ))[0].holder,
    );
    sampler = sampleAttempts(schema, hook.body.id);
    const started = performance.now();
    await Promise.all([
      runWriters(set, ledger, WRITERS, started + RUN_MS),
      killAndRestart(set, sender!, started + KILL_AT_MS),
      cutAndRestore(set, (sender! + 1) % 3, started + CUT_AT_MS, first.id),
    ]);
    console.log(
      `${ledger.acked.length} acknowledged writes; answers by replica: ${ledger.summary()}`,
    );
    assert.deepEqual(ledger.unexpected, []);
    assert.ok(ledger.acked.length > 1000, `only ${ledger.acked.length} writes acknowledged`);

    const head = await committedHead(schema);
    const waited = performance.now();
    await eventually(async () => await unerased(schema) === 0, "every delete erased");
    await erasureDone(schema);
    console.log(`erasure settled ${Math.round(performance.now() - waited)} ms after the load`);
    const feed = await auditFeed(set, ledger, head);
    const webhook: WebhookRun = {
      id: hook.body.id,
      secret: hook.body.secret,
      lastSeq: hook.body.last_seq,
      receiver,
      attempts: (lastSeq) => sampler!.stop(lastSeq),
      killedSender,
    };
    for (const audit of AUDITS) await audit({ set, webhook, ledger, head, feed });
  } finally {
    await sampler?.stop();
    await set.dispose();
    await receiver.close();
    await schema.drop();
  }
});
