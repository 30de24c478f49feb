/**
 * After kill -9 of the process delivering a webhook endpoint, delivery resumes from a checkpoint
 * no older than the last second: every event arrives, and only events first delivered in the last
 * second before the kill arrive twice. On PostgreSQL another replica takes the endpoint over; on
 * the JSONL store the same server is started again on its DATA_DIR. Deliveries flow steadily to a
 * real loopback receiver that verifies each one with the standardwebhooks package.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { createTestSchema } from "../support/postgres.ts";
import { ReplicaSet } from "../support/replica_set.ts";
import { deliveringReplica } from "../support/replica_webhooks.ts";
import { makeDataDir, removeDir, startServer, type TestServer } from "../support/server.ts";
import { steadyWriter } from "../support/steady_writer.ts";
import { makeToken } from "../support/tokens.ts";
import { Receiver, verify } from "../support/webhook_receiver.ts";

const MANAGE = "customers:read customers:write webhooks:manage";
const ENV = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT: "1s" };
/** Events a second while the process is killed. */
const RATE = 20;

Deno.test("webhooks on PostgreSQL: after kill -9 of the delivering replica another takes over, redelivering only the last second", async () => {
  const schema = await createTestSchema();
  const receiver = new Receiver();
  const set = await ReplicaSet.start(3, schema.url, await makeToken({ scope: MANAGE }), ENV);
  let victim: number | undefined;
  const writer = steadyWriter(
    () => set.live.filter((replica) => replica.index !== victim).map((replica) => replica.api!),
    RATE,
  );
  try {
    const created = await set.replicas[1].api!.post("/api/webhooks", {
      json: { url: receiver.url() },
    });
    assert.equal(created.status, 201, created.text);
    const hook = created.body as { id: string; secret: string; last_seq: number };
    await receiver.waitFor((got) => got.length >= 20, 15_000);
    victim = await eventually(
      () => deliveringReplica(schema, set, hook.id),
      "a delivering replica",
    );
    // Deliveries flow for a while from the replica about to die, written through the others.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const killedAt = Date.now();
    await set.kill(victim);
    const resumed = await eventually(
      () => Promise.resolve(receiver.received.find((r) => r.at > killedAt)?.at),
      "a delivery after the kill",
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await writer.stop();
    const head = await finalSeq(set.live[0].api!);
    const duplicates = await assertResumedWithinASecond(
      receiver,
      hook,
      head,
      killedAt,
    );
    console.log(
      `PostgreSQL failover: next delivery ${resumed - killedAt} ms after the kill, ` +
        `${duplicates.length} redelivered (first sent ${formatAges(duplicates)} ms before it)`,
    );
  } finally {
    await writer.stop();
    await set.dispose();
    await receiver.close();
    await schema.drop();
  }
});

Deno.test("webhooks on the JSONL store: after kill -9 and a restart, only the last second is redelivered", async () => {
  const dataDir = await makeDataDir();
  const receiver = new Receiver();
  const token = await makeToken({ scope: MANAGE });
  let server: TestServer | undefined = await startServer({ dataDir, env: ENV });
  let api: ApiClient | undefined = new ApiClient(server.url, token);
  const writer = steadyWriter(() => api === undefined ? [] : [api], RATE);
  try {
    const created = await api.post("/api/webhooks", { json: { url: receiver.url() } });
    assert.equal(created.status, 201, created.text);
    const hook = created.body as { id: string; secret: string; last_seq: number };
    await receiver.waitFor((got) => got.length >= 40, 15_000);
    const killedAt = Date.now();
    api = undefined;
    await server.stop("SIGKILL");
    await server.dispose();
    server = await startServer({ dataDir, env: ENV });
    api = new ApiClient(server.url, token);
    const resumed = await eventually(
      () => Promise.resolve(receiver.received.find((r) => r.at > killedAt)?.at),
      "a delivery after the restart",
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await writer.stop();
    const head = await finalSeq(api);
    const duplicates = await assertResumedWithinASecond(receiver, hook, head, killedAt);
    console.log(
      `JSONL kill -9 and restart: next delivery ${resumed - killedAt} ms after the kill, ` +
        `${duplicates.length} redelivered (first sent ${formatAges(duplicates)} ms before it)`,
    );
  } finally {
    await writer.stop();
    await server?.dispose();
    await receiver.close();
    await removeDir(dataDir);
  }
});

/**
 * Waits until every event after the endpoint's creation up to `head` arrived, each verified;
 * asserts every event that arrived twice first arrived less than 1 s before the kill. Returns,
 * per redelivered event, how long before the kill it first arrived (ms).
 */
async function assertResumedWithinASecond(
  receiver: Receiver,
  hook: { secret: string; last_seq: number },
  head: number,
  killedAt: number,
): Promise<number[]> {
  const expected = Array.from({ length: head - hook.last_seq }, (_, i) => hook.last_seq + i + 1);
  await receiver.waitFor(
    (got) => expected.every((seq) => got.some((r) => r.id === `evt_${seq}`)),
    20_000,
  );
  const arrivals = new Map<string, number[]>();
  for (const delivery of receiver.received) {
    verify(delivery, hook.secret);
    arrivals.set(delivery.id, [...(arrivals.get(delivery.id) ?? []), delivery.at]);
  }
  const missing = expected.filter((seq) => !arrivals.has(`evt_${seq}`));
  assert.deepEqual(missing, [], "events never delivered");
  const ages: number[] = [];
  for (const [id, times] of arrivals) {
    if (times.length < 2) continue;
    const age = killedAt - times[0];
    ages.push(age);
    assert.ok(age < 1000, `${id} first arrived ${age} ms before the kill and came again`);
  }
  return ages;
}

/** The seq of one more write: every event up to it is committed. */
async function finalSeq(api: ApiClient): Promise<number> {
  const res = await api.post("/api/customers", { json: newCustomer() });
  assert.equal(res.status, 201, res.text);
  return Number(res.headers.get("log-seq"));
}

function formatAges(ages: number[]): string {
  return ages.length === 0 ? "none" : `${Math.min(...ages)}–${Math.max(...ages)}`;
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000) {
  const until = performance.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error(`Not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
