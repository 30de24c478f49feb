/**
 * Webhooks under stress, end to end: kill -9 during delivery, a hanging endpoint beside a healthy
 * one, server-side request forgery refused, and MAX_WEBHOOKS (issue 14).
 */
import assert from "node:assert/strict";
import { ApiClient, assertProblem, assertValidationPointers, newCustomer } from "../support/api.ts";
import { Receiver, verify } from "../support/webhook_receiver.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MANAGE = "customers:read customers:write webhooks:manage";
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_SCHEDULE: "200ms,400ms,800ms",
  WEBHOOK_TIMEOUT: "1s",
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("kill -9 during delivery: every event arrives after restart, repeats only from the last second", async () => {
  const dataDir = await makeDataDir();
  const receiver = new Receiver();
  receiver.behaviour = () => sleep(25).then(() => 204);
  try {
    const server = await startServer({ dataDir, env: ENV });
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    const created = await api.post("/api/webhooks", { json: { url: receiver.url() } });
    assert.equal(created.status, 201);
    const secret = created.body.secret;
    const total = 60;
    for (let i = 0; i < total; i++) await api.create(newCustomer());
    await receiver.waitFor((r) => r.length >= 15);
    const killedAt = Date.now();
    await server.stop("SIGKILL");
    const before = receiver.received.length;
    assert.ok(before < total, `all ${before} delivered before the kill; nothing was tested`);
    const again = await startServer({ dataDir, env: ENV });
    try {
      const got = await receiver.waitFor((r) => new Set(r.map((d) => d.event.seq)).size >= total);
      const seqs = got.map((d) => d.event.seq);
      assert.deepEqual(
        [...new Set(seqs)].sort((a, b) => a - b),
        [...Array(total)].map((_, i) => i + 1),
      );
      for (const delivery of got) verify(delivery, secret);
      // After the restart, delivery resumes in order from the checkpoint.
      const resumed = seqs.slice(before);
      assert.deepEqual(resumed, [...resumed].sort((a, b) => a - b));
      assert.ok(resumed[0] <= seqs[before - 1] + 1, `gap: ${seqs[before - 1]} then ${resumed[0]}`);
      const repeated = got.slice(0, before).filter((d) => resumed.includes(d.event.seq));
      for (const first of repeated) {
        assert.ok(
          killedAt - first.at <= 1000,
          `seq ${first.event.seq} repeated, ${killedAt - first.at} ms old`,
        );
      }
    } finally {
      await again.dispose();
    }
  } finally {
    await receiver.close();
    await removeDir(dataDir);
  }
});

Deno.test("an endpoint that never answers does not delay a healthy one", async () => {
  const healthy = new Receiver();
  const hanging = new Receiver();
  hanging.behaviour = () => "hang";
  const server = await startServer({ env: ENV });
  try {
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    assert.equal((await api.post("/api/webhooks", { json: { url: healthy.url() } })).status, 201);
    /** Commit-to-delivery latency of `n` writes, one after the other, in ms. */
    const latencies = async (n: number) => {
      const result: number[] = [];
      for (let i = 0; i < n; i++) {
        const count = healthy.received.length;
        const started = Date.now();
        await api.create(newCustomer());
        await healthy.waitFor((r) => r.length > count);
        result.push(healthy.received[count].at - started);
      }
      return result;
    };
    const alone = await latencies(10);
    assert.equal((await api.post("/api/webhooks", { json: { url: hanging.url() } })).status, 201);
    const beside = await latencies(10);
    await hanging.waitFor((r) => r.length >= 1);
    // Were the healthy endpoint waiting on the hanging one, each write would take the 1 s timeout.
    const worst = Math.max(...beside);
    assert.ok(
      worst < 500,
      `healthy latency beside a hanging endpoint: ${beside} (alone: ${alone})`,
    );
    assert.ok(
      hanging.received.length <= 2,
      "the hanging endpoint got only its first event (retried)",
    );
  } finally {
    await server.dispose();
    await healthy.close();
    await hanging.close();
  }
});

Deno.test("without WEBHOOK_ALLOW_PRIVATE only https to public addresses is accepted, up to MAX_WEBHOOKS", async () => {
  const server = await startServer({ env: { MAX_WEBHOOKS: "2" } });
  try {
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    const refused = [
      "http://93.184.215.14/hook",
      "https://127.0.0.1/hook",
      "https://127.1.2.3:8443/hook",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::ffff:a00:1]/hook",
      "https://[64:ff9b::a9fe:a9fe]/hook",
      "https://[2002:c0a8:101::1]/hook",
      "https://10.0.0.1/hook",
      "https://172.16.5.4/hook",
      "https://192.168.1.1/hook",
      "https://100.64.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[fe80::1]/hook",
      "https://[fd00::1]/hook",
      "https://224.0.0.1/hook",
      "https://[ff02::1]/hook",
      "https://0.0.0.0/hook",
      "https://[::]/hook",
      "https://no-such-host.invalid/hook",
    ];
    for (const url of refused) {
      const res = await api.post("/api/webhooks", { json: { url } });
      assertValidationPointers(res, ["/url"]);
    }
    for (const path of ["a", "b"]) {
      const res = await api.post("/api/webhooks", {
        json: { url: `https://93.184.215.14/${path}` },
      });
      assert.equal(res.status, 201, res.text);
    }
    const third = await api.post("/api/webhooks", { json: { url: "https://93.184.215.14/c" } });
    assertProblem(third, 409);
    assert.equal(third.body.type, "urn:problem-type:customer-api:webhook-limit-reached");
    const list = await api.get("/api/webhooks?limit=1");
    assert.equal(list.body.data.length, 1);
    assert.match(list.headers.get("link") ?? "", /rel="next"/);
    const next = await api.get(`/api/webhooks?limit=1&cursor=${list.body.next_cursor}`);
    assert.equal(next.body.data.length, 1);
    assert.equal(next.body.next_cursor, null);
    const first = list.body.data[0];
    const patched = await api.patch(`/api/webhooks/${first.id}`, {
      json: { url: "https://192.168.0.10/x" },
    });
    assertValidationPointers(patched, ["/url"]);
  } finally {
    await server.dispose();
  }
});
