/**
 * Webhooks on PostgreSQL with three real replicas (`deno task start`, DATABASE_URL of a schema of
 * the test's own): endpoints changed on one replica are served by the others at once, and an
 * endpoint is delivered by one replica at a time, moving to another within seconds when the
 * delivering one is killed with SIGKILL; a real loopback receiver verifies every delivery.
 */
import assert from "node:assert/strict";
import { type ApiClient, newCustomer } from "../support/api.ts";
import { createTestSchema } from "../support/postgres.ts";
import { ReplicaSet } from "../support/replica_set.ts";
import {
  assertDeliveredInOrder,
  assertOneSenderAtATime,
  deliveringReplica,
  leaseHolder,
  sampleAttempts,
} from "../support/replica_webhooks.ts";
import { makeToken } from "../support/tokens.ts";
import { Receiver } from "../support/webhook_receiver.ts";

const MANAGE = "customers:read customers:write webhooks:manage";
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_SCHEDULE: "200ms,400ms,800ms,1s,1s,1s",
  WEBHOOK_TIMEOUT: "1s",
};

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000) {
  const until = performance.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error(`Not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates `count` customers round robin over `apis`, `gapMs` apart; returns the 201s. */
async function writeAcross(apis: ApiClient[], count: number, gapMs: number) {
  let acked = 0;
  for (let i = 0; i < count; i++) {
    const res = await apis[i % apis.length].post("/api/customers", { json: newCustomer() });
    if (res.status === 201) acked++;
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return acked;
}

Deno.test("webhooks on three PostgreSQL replicas: endpoints shared, one sender at a time, failover after kill -9", async (t) => {
  const schema = await createTestSchema();
  const receiver = new Receiver();
  const set = await ReplicaSet.start(3, schema.url, await makeToken({ scope: MANAGE }), ENV);
  try {
    const [a, b, c] = set.replicas.map((replica) => replica.api!);

    await t.step("a change on one replica is served by the others at once", async () => {
      const created = await a.post("/api/webhooks", { json: { url: receiver.url("/other") } });
      assert.equal(created.status, 201, created.text);
      const id = created.body.id;
      const onB = await b.get(`/api/webhooks/${id}`);
      assert.equal(onB.status, 200, onB.text);
      assert.equal(onB.body.url, receiver.url("/other"));
      const patched = await b.patch(`/api/webhooks/${id}`, {
        json: { description: "from b" },
        headers: { "if-match": '"1"' },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.headers.get("etag"), '"2"');
      // C's If-Match names the version B replaced: refused, as on one server.
      const stale = await c.patch(`/api/webhooks/${id}`, {
        json: { description: "from c" },
        headers: { "if-match": '"1"' },
      });
      assert.equal(stale.status, 412, stale.text);
      const listed = await c.get("/api/webhooks");
      assert.deepEqual(listed.body.data.map((e: { description: string }) => e.description), [
        "from b",
      ]);
      const removed = await c.delete(`/api/webhooks/${id}`);
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await a.get(`/api/webhooks/${id}`)).status, 404);
      assert.deepEqual((await b.get("/api/webhooks")).body.data, []);
    });

    await t.step(
      "kill -9 of the delivering replica: another goes on within seconds, in order",
      async () => {
        const created = await b.post("/api/webhooks", { json: { url: receiver.url() } });
        assert.equal(created.status, 201, created.text);
        const hook = created.body as { id: string; secret: string; last_seq: number };
        const sampler = sampleAttempts(schema, hook.id);
        const ackedBefore = await writeAcross([a, b, c], 30, 20);
        await receiver.waitFor((got) => got.length >= 10);
        const holder = await eventually(
          () => deliveringReplica(schema, set, hook.id),
          "the replica holding the lease is the one delivering",
        );
        // The writers go on over the survivors while the delivering replica dies.
        const survivors = set.replicas.filter((r) => r.index !== holder).map((r) => r.api!);
        const writing = writeAcross(survivors, 60, 25);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await set.kill(holder);
        // Measured from when the process is gone: whatever arrives after came from another one.
        const killedAt = Date.now();
        const resumed = await eventually(
          () => Promise.resolve(receiver.received.find((r) => r.at > killedAt)?.at),
          "a delivery after the kill",
        );
        const next = await eventually(
          () => leaseHolder(schema, set, hook.id),
          "another replica holds the lease",
        );
        assert.notEqual(next, holder);
        const ackedAfter = await writing;
        const head = Number(
          (await schema.query(`SELECT seq FROM ${schema.name}.log_head`))[0].seq,
        );
        const expected = Array.from(
          { length: head - hook.last_seq },
          (_, i) => hook.last_seq + i + 1,
        );
        await receiver.waitFor(
          (got) => expected.every((seq) => got.some((r) => r.event.seq === seq)),
          20_000,
        );
        const attempts = await sampler.stop(head);
        const repeats = assertDeliveredInOrder(
          receiver.received.filter((r) => r.event.seq > hook.last_seq && r.id.startsWith("evt_")),
          hook.secret,
          expected,
        );
        assertOneSenderAtATime(attempts);
        const senders = new Map<string, number>();
        for (const x of attempts) senders.set(x.sentBy, (senders.get(x.sentBy) ?? 0) + 1);
        assert.ok(
          senders.size >= 2,
          `one replica sent everything: ${JSON.stringify([...senders])}`,
        );
        const failoverMs = resumed - killedAt;
        console.log(
          `webhook failover after kill -9: next delivery ${failoverMs} ms after the kill; ` +
            `${expected.length} events (${ackedBefore + ackedAfter} acknowledged creates), ` +
            `${repeats} redelivered, ${attempts.length} attempts sampled`,
        );
        assert.ok(failoverMs < 8000, `delivery resumed only ${failoverMs} ms after the kill`);
      },
    );

    await t.step(
      "the delivering replica cut from the database: webhook writes 503 there, delivery goes on",
      async () => {
        const hook = (await a.get("/api/webhooks")).body.data[0] as {
          id: string;
          last_seq: number;
        };
        const holder = await eventually(
          () => leaseHolder(schema, set, hook.id),
          "a replica holds the lease",
        );
        const cut = set.replicas[holder];
        const other = set.live.find((r) => r.index !== holder)!.api!;
        cut.proxy.cut();
        const refused = await cut.api!.patch(`/api/webhooks/${hook.id}`, {
          json: { description: "cut" },
        });
        assert.equal(refused.status, 503, refused.text);
        assert.match(String(refused.body.type), /storage-unavailable$/);
        const read = await cut.api!.get(`/api/webhooks/${hook.id}`);
        assert.equal(read.status, 503, read.text);
        const cutAt = Date.now();
        const before = receiver.received.length;
        await writeAcross([other], 20, 20);
        const head = Number(
          (await schema.query(`SELECT seq FROM ${schema.name}.log_head`))[0].seq,
        );
        await receiver.waitFor((got) => got.some((r) => r.event.seq === head), 20_000);
        console.log(
          `webhooks with the delivering replica cut: seq ${head} received ` +
            `${Date.now() - cutAt} ms after the cut (${
              receiver.received.length - before
            } deliveries)`,
        );
        cut.proxy.restore();
        await eventually(
          async () => (await cut.api!.get(`/api/webhooks/${hook.id}`)).status === 200 || undefined,
          "webhook reads on the restored replica",
        );
      },
    );
  } finally {
    await set.dispose();
    await receiver.close();
    await schema.drop();
  }
});
