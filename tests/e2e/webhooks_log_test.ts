/**
 * Webhooks and what compaction removes from the log: erased customers' data is not delivered
 * later, not even from memory, and an endpoint that fell behind past retention is disabled with
 * reason `retention` rather than skipping events (issue 14, point 4).
 */
import assert from "node:assert/strict";
import { ApiClient, type ApiClient as Client, newCustomer } from "../support/api.ts";
import { Receiver } from "../support/webhook_receiver.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MANAGE = "customers:read customers:write webhooks:manage";

async function register(api: Client, url: string) {
  const res = await api.post("/api/webhooks", { json: { url } });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; last_seq: number };
}

Deno.test("an endpoint resuming from before an erased customer gets none of its data, not even from memory", async () => {
  const dataDir = await makeDataDir();
  const following = new Receiver();
  const resuming = new Receiver();
  try {
    await using server = await startServer({
      dataDir,
      env: { WEBHOOK_ALLOW_PRIVATE: "1", ERASE_WITHIN_SECONDS: "0" },
    });
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    // Both start at the same seq: the one that follows reads the customer's events into memory.
    const live = await register(api, following.url());
    const paused = await register(api, resuming.url());
    assert.equal(live.last_seq, paused.last_seq);
    const off = await api.patch(`/api/webhooks/${paused.id}`, { json: { enabled: false } });
    assert.equal(off.body.status, "disabled");
    const email = `erase-me-${crypto.randomUUID()}@example.com`;
    const customer = await api.create(newCustomer({ email }));
    await api.patch(`/api/customers/${customer.id}`, { json: { name: "Renamed" } });
    assert.equal((await api.delete(`/api/customers/${customer.id}`)).status, 204);
    const seen = await following.waitFor((r) => r.length >= 3);
    assert.deepEqual(seen.map((d) => d.event.type), [
      "customer.created",
      "customer.updated",
      "customer.deleted",
    ]);
    // The compaction after the delete removes the customer's events; the feed shows it.
    await waitUntil(async () => {
      const feed = await api.get(`/api/events?after=${paused.last_seq}`);
      return !feed.text.includes(email);
    });

    const on = await api.patch(`/api/webhooks/${paused.id}`, { json: { enabled: true } });
    assert.equal(on.body.status, "active");
    const got = await resuming.waitFor((r) => r.some((d) => d.event.type === "customer.deleted"));
    assert.deepEqual(got.map((d) => [d.event.type, d.event.customer_id]), [
      ["customer.deleted", customer.id],
    ]);
    assert.ok(got.every((d) => !d.body.includes(email)), "erased data was delivered");
  } finally {
    await following.close();
    await resuming.close();
    await removeDir(dataDir);
  }
});

Deno.test("an enabled endpoint that fell behind past retention is disabled with reason retention, skipping nothing", async () => {
  const dataDir = await makeDataDir();
  const receiver = new Receiver();
  try {
    await using server = await startServer({
      dataDir,
      env: {
        WEBHOOK_ALLOW_PRIVATE: "1",
        // The second retry comes late: meanwhile retention and two compactions drop the log's start.
        WEBHOOK_RETRY_SCHEDULE: "100ms,8s",
        EVENT_RETENTION: "1s",
        SNAPSHOT_EVERY: "5",
      },
    });
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    const hook = await register(api, receiver.url());
    receiver.behaviour = () => 500;
    const stuck = await api.create(newCustomer());
    const stuckSeq = (await receiver.waitFor((r) => r.length >= 2))[0].event.seq as number;
    for (let i = 0; i < 6; i++) await api.create(newCustomer());
    // Old enough for retention before the compaction that drops them.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    for (let i = 0; i < 6; i++) await api.create(newCustomer());
    await waitUntil(async () => (await firstSegmentSeq(dataDir)) > stuckSeq + 1);
    receiver.behaviour = () => 204;

    const disabled = await waitUntil(async () => {
      const res = await api.get(`/api/webhooks/${hook.id}`);
      return res.body.status === "disabled" ? res.body : undefined;
    }, 15_000);
    assert.equal(disabled.disabled_reason, "retention");
    // The event it was retrying was delivered; none after it, since the log no longer has them.
    assert.equal(disabled.last_seq, stuckSeq);
    const seqs = receiver.received.map((d) => d.event.seq);
    assert.deepEqual([...new Set(seqs)], [stuckSeq]);
    assert.equal(receiver.received.at(-1)!.event.customer_id, stuck.id);

    // Enabled again, it starts at the head like a new endpoint: the receiver resyncs the rest.
    const head = await api.create(newCustomer());
    const again = await api.patch(`/api/webhooks/${hook.id}`, { json: { enabled: true } });
    assert.equal(again.body.status, "active");
    assert.ok(again.body.last_seq > stuckSeq);
    const next = await api.create(newCustomer());
    const after = await receiver.waitFor((r) => r.some((d) => d.event.customer_id === next.id));
    assert.ok(!after.some((d) => d.event.customer_id === head.id), "before enabling: not sent");
    assert.equal(after.at(-1)!.event.customer_id, next.id);
  } finally {
    await receiver.close();
    await removeDir(dataDir);
  }
});

Deno.test("an endpoint whose next events are past EVENT_RETENTION is disabled with reason retention, as the feed answers 410", async () => {
  const dataDir = await makeDataDir();
  const receiver = new Receiver();
  try {
    await using server = await startServer({
      dataDir,
      env: { WEBHOOK_ALLOW_PRIVATE: "1", EVENT_RETENTION: "1s" },
    });
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    await api.create(newCustomer()); // so that the endpoint starts past seq 0 (the feed's "oldest")
    const hook = await register(api, receiver.url());
    await api.patch(`/api/webhooks/${hook.id}`, { json: { enabled: false } });
    for (let i = 0; i < 3; i++) await api.create(newCustomer());
    // Event times are whole seconds: past a 1 s retention for sure after 2.2 s.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    assert.equal((await api.get(`/api/events?after=${hook.last_seq}`)).status, 410);

    // No compaction ran (they are still on disk): compaction may drop them at any time.
    await api.patch(`/api/webhooks/${hook.id}`, { json: { enabled: true } });
    const disabled = await waitUntil(async () => {
      const res = await api.get(`/api/webhooks/${hook.id}`);
      return res.body.status === "disabled" ? res.body : undefined;
    });
    assert.equal(disabled.disabled_reason, "retention");
    assert.equal(disabled.last_seq, hook.last_seq);
    assert.equal(receiver.received.length, 0);
  } finally {
    await receiver.close();
    await removeDir(dataDir);
  }
});

/** The first seq the log's oldest segment holds (segments are named by it). */
async function firstSegmentSeq(dataDir: string): Promise<number> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${dataDir}/log`)) names.push(entry.name);
  return Math.min(...names.map((name) => Number(name.slice(0, 20))));
}

async function waitUntil<T>(check: () => Promise<T>, ms = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Not reached within ${ms} ms`);
}
