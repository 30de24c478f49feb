/**
 * Webhooks end to end: the real server delivers to real loopback receivers, and every delivery
 * is verified with the standardwebhooks library (issue 14).
 */
import assert from "node:assert/strict";
import { PUBLIC_EVENT_FIELDS } from "../support/customers.ts";
import {
  ApiClient,
  type ApiClient as Client,
  assertProblem,
  assertValidationPointers,
  newCustomer,
} from "../support/api.ts";
import { parseSamples, sample } from "../support/metrics_text.ts";
import { Receiver, verify } from "../support/webhook_receiver.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MANAGE = "customers:read customers:write webhooks:manage";
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_SCHEDULE: "200ms,400ms,800ms",
  WEBHOOK_TIMEOUT: "1s",
};
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

async function register(api: Client, url: string, more: Record<string, unknown> = {}) {
  const res = await api.post("/api/webhooks", { json: { url, ...more } });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; secret: string; last_seq: number; version: number };
}

Deno.test("webhooks: manage, deliver in order, sign, rotate, ping, retry, disable, resume", async (t) => {
  const dataDir = await makeDataDir();
  const receiver = new Receiver();
  const secrets: string[] = [];
  try {
    const server = await startServer({ dataDir, env: ENV });
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    let hook = { id: "", secret: "", last_seq: 0, version: 1 };

    await t.step("every webhook route needs the webhooks:manage scope", async () => {
      const reader = await makeToken({ scope: "customers:read customers:write" });
      const res = await api.get("/api/webhooks", { token: reader });
      assertProblem(res, 403);
      assert.match(res.headers.get("www-authenticate") ?? "", /scope="webhooks:manage"/);
      assertProblem(await api.get("/api/webhooks", { token: null }), 401);
    });

    await t.step("a bad endpoint is refused with 422 naming every field", async () => {
      const res = await api.post("/api/webhooks", {
        json: { url: "ftp://x", types: ["customer.moved"], enabled: "yes", color: 1 },
      });
      assertValidationPointers(res, ["/url", "/types/0", "/enabled", "/color"]);
      assertValidationPointers(await api.post("/api/webhooks", { json: { types: [] } }), [
        "/url",
        "/types",
      ]);
    });

    await t.step("create answers 201 with the secret once; reads never show it", async () => {
      await api.create(newCustomer()); // before the endpoint: never delivered to it
      const res = await api.post("/api/webhooks", {
        json: { url: receiver.url(), description: "crm" },
      });
      assert.equal(res.status, 201, res.text);
      hook = res.body;
      secrets.push(hook.secret);
      assert.match(hook.secret, SECRET);
      assert.equal(res.headers.get("location"), `/api/webhooks/${hook.id}`);
      assert.equal(res.headers.get("etag"), '"1"');
      assert.equal(res.body.status, "active");
      assert.equal(res.body.last_seq, 1);
      assert.deepEqual(res.body.types, [
        "customer.created",
        "customer.updated",
        "customer.deleted",
      ]);
      const one = await api.get(`/api/webhooks/${hook.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.secret, undefined);
      const list = await api.get("/api/webhooks");
      assert.equal(list.body.data.length, 1);
      assert.ok(!list.text.includes(hook.secret));
    });

    await t.step(
      "events after creation arrive in seq order, signed, with the §8 shape",
      async () => {
        const a = await api.create(newCustomer());
        const b = await api.create(newCustomer());
        const patched = await api.patch(`/api/customers/${a.id}`, { json: { name: "Renamed" } });
        assert.equal(patched.status, 200);
        assert.equal((await api.delete(`/api/customers/${b.id}`)).status, 204);
        const got = await receiver.waitFor((r) => r.length >= 4);
        assert.deepEqual(got.map((d) => d.event.seq), [2, 3, 4, 5]);
        assert.deepEqual(got.map((d) => d.id), ["evt_2", "evt_3", "evt_4", "evt_5"]);
        assert.deepEqual(got.map((d) => d.event.type), [
          "customer.created",
          "customer.created",
          "customer.updated",
          "customer.deleted",
        ]);
        for (const delivery of got) {
          assert.deepEqual(verify(delivery, hook.secret), delivery.event);
          assert.equal(delivery.contentType, "application/json");
          assert.deepEqual(Object.keys(delivery.event), [...PUBLIC_EVENT_FIELDS]);
        }
        assert.equal(got[2].event.data.name, "Renamed");
        assert.equal(got[3].event.data, null);
        assert.throws(() => verify(got[0], "whsec_" + btoa("x".repeat(32))));
      },
    );

    await t.step("ping sends one signed webhook.ping at once and answers its outcome", async () => {
      const before = receiver.received.length;
      const res = await api.post(`/api/webhooks/${hook.id}/ping`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.delivered, true);
      assert.equal(res.body.status_code, 204);
      const ping = receiver.received[before];
      assert.equal(ping.event.type, "webhook.ping");
      assert.match(ping.id, /^ping_/);
      verify(ping, hook.secret);
    });

    await t.step(
      "rotation shows a new secret; both secrets verify deliveries meanwhile",
      async () => {
        const stale = await api.post(`/api/webhooks/${hook.id}/rotate-secret`, {
          headers: { "if-match": '"9"' },
        });
        assertProblem(stale, 412);
        const res = await api.post(`/api/webhooks/${hook.id}/rotate-secret`);
        assert.equal(res.status, 200, res.text);
        assert.match(res.body.secret, SECRET);
        assert.notEqual(res.body.secret, hook.secret);
        secrets.push(res.body.secret);
        const before = receiver.received.length;
        await api.create(newCustomer());
        const [delivery] = (await receiver.waitFor((r) => r.length > before)).slice(before);
        assert.equal(delivery.signature.split(" ").length, 2);
        verify(delivery, hook.secret);
        verify(delivery, res.body.secret);
        hook.secret = res.body.secret;
      },
    );

    await t.step("PATCH checks If-Match and validates the merged endpoint", async () => {
      const current = await api.get(`/api/webhooks/${hook.id}`);
      const stale = await api.patch(`/api/webhooks/${hook.id}`, {
        json: { description: "x" },
        headers: { "if-match": '"1"' },
      });
      assertProblem(stale, 412);
      assertValidationPointers(
        await api.patch(`/api/webhooks/${hook.id}`, { json: { types: ["nope"] } }),
        ["/types/0"],
      );
      const ok = await api.patch(`/api/webhooks/${hook.id}`, {
        json: { description: "billing" },
        headers: { "if-match": current.headers.get("etag")! },
        contentType: "application/merge-patch+json",
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.description, "billing");
      assert.equal(ok.body.version, current.body.version + 1);
      assert.equal(ok.body.secret, undefined);
    });

    await t.step(
      "a failing event is retried on the schedule and later events wait for it",
      async () => {
        const before = receiver.received.length;
        let failures = 2;
        receiver.behaviour = () => failures-- > 0 ? 500 : 204;
        const first = await api.create(newCustomer());
        await api.create(newCustomer());
        const got = (await receiver.waitFor((r) => r.length >= before + 4)).slice(before);
        const seqs = got.map((d) => d.event.seq);
        const firstSeq = seqs[0];
        assert.deepEqual(seqs, [firstSeq, firstSeq, firstSeq, firstSeq + 1]);
        assert.equal(got[0].event.customer_id, first.id);
        assert.ok(new Set(got.slice(0, 3).map((d) => d.id)).size === 1, "webhook-id is stable");
        // 200 ms then 400 ms between the tries (generous bounds: timers and load).
        assert.ok(got[1].at - got[0].at >= 180, `${got[1].at - got[0].at} ms`);
        assert.ok(got[2].at - got[1].at >= 380, `${got[2].at - got[1].at} ms`);
        // The deliveries log shows an attempt once it is durable (within 100 ms).
        const log = await waitForLog(
          api,
          hook.id,
          (data) => data.some((a) => a.seq === firstSeq + 1),
        );
        const ofFirst = log.filter((a: { seq: number }) => a.seq === firstSeq);
        assert.deepEqual(ofFirst.map((a: { attempt: number }) => a.attempt), [3, 2, 1]);
        assert.deepEqual(ofFirst.map((a: { status_code: number }) => a.status_code), [
          204,
          500,
          500,
        ]);
        assert.equal(ofFirst[0].next_attempt_at, null);
        assert.equal(typeof ofFirst[1].next_attempt_at, "string");
        receiver.behaviour = () => 204;
      },
    );

    await t.step(
      "after the last retry fails the endpoint is disabled; enabling resumes there",
      async () => {
        receiver.behaviour = () => 500;
        const before = receiver.received.length;
        const stuck = await api.create(newCustomer());
        const got = (await receiver.waitFor((r) => r.length >= before + 4)).slice(before);
        assert.ok(got.every((d) => d.event.customer_id === stuck.id));
        const disabled = await waitForEndpoint(api, hook.id, (e) => e.status === "disabled");
        assert.match(disabled.disabled_reason, /^failures/);
        assert.equal(receiver.received.length, before + 4, "1 try + 3 retries");
        await api.create(newCustomer()); // committed while disabled: delivered after re-enabling
        receiver.behaviour = () => 204;
        const enabled = await api.patch(`/api/webhooks/${hook.id}`, { json: { enabled: true } });
        assert.equal(enabled.body.status, "active");
        assert.equal(enabled.body.disabled_reason, null);
        const resumed = (await receiver.waitFor((r) => r.length >= before + 6)).slice(before + 4);
        assert.equal(resumed[0].event.customer_id, stuck.id);
        assert.equal(resumed[1].event.seq, resumed[0].event.seq + 1);
      },
    );

    await t.step("a 410 disables at once; a redirect and a timeout are failures", async () => {
      const gone = new Receiver();
      const moved = new Receiver();
      try {
        gone.behaviour = () => 410;
        moved.behaviour = (_d, n) => n === 1 ? 302 : n === 2 ? "hang" : 204;
        const g = await register(api, gone.url());
        const m = await register(api, moved.url());
        await api.create(newCustomer());
        const off = await waitForEndpoint(api, g.id, (e) => e.status === "disabled");
        assert.equal(off.disabled_reason, "gone");
        assert.equal(gone.received.length, 1);
        await moved.waitFor((r) => r.length >= 3);
        const attempts = await waitForLog(api, m.id, (data) => data.length >= 3);
        assert.equal(attempts[2].status_code, 302);
        assert.match(attempts[2].error, /redirect/);
        assert.equal(attempts[1].status_code, null);
        assert.match(attempts[1].error, /no answer within 1000 ms/);
        assert.equal(attempts[0].status_code, 204);
        for (const id of [g.id, m.id]) {
          assert.equal((await api.delete(`/api/webhooks/${id}`)).status, 204);
        }
        assertProblem(await api.get(`/api/webhooks/${g.id}`), 404);
      } finally {
        await gone.close();
        await moved.close();
      }
    });

    await t.step(
      "metrics count deliveries by outcome and show each endpoint's backlog",
      async () => {
        const samples = parseSamples((await api.get("/metrics", { token: null })).text);
        assert.ok(sample(samples, 'webhook_deliveries_total{outcome="success"}') >= 8);
        assert.ok(sample(samples, 'webhook_deliveries_total{outcome="http_error"}') >= 6);
        assert.ok(sample(samples, 'webhook_deliveries_total{outcome="timeout"}') >= 1);
        assert.ok(sample(samples, "webhook_delivery_duration_seconds_count") >= 15);
        assert.equal(sample(samples, `webhook_backlog_events{webhook_id="${hook.id}"}`), 0);
        assert.equal(sample(samples, `webhook_endpoint_active{webhook_id="${hook.id}"}`), 1);
      },
    );

    await t.step("endpoints, checkpoints and the deliveries log survive a restart", async () => {
      const before = (await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data;
      const received = receiver.received.length;
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      for (const secret of secrets) {
        assert.ok(
          !stopped.stdout.includes(secret) && !stopped.stderr.includes(secret),
          "secret logged",
        );
      }
      const again = await startServer({ dataDir, env: ENV });
      try {
        const api2 = new ApiClient(again.url, api.token);
        const after = (await api2.get(`/api/webhooks/${hook.id}/deliveries`)).body.data;
        assert.deepEqual(after, before);
        await api2.create(newCustomer());
        const got = (await receiver.waitFor((r) => r.length > received)).slice(received);
        verify(got[0], hook.secret);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(receiver.received.length, received + 1, "nothing delivered twice");
      } finally {
        await again.dispose();
      }
    });
  } finally {
    await receiver.close();
    await removeDir(dataDir);
  }
});

// deno-lint-ignore no-explicit-any -- an endpoint as JSON
async function waitForEndpoint(api: Client, id: string, done: (e: any) => boolean) {
  for (let i = 0; i < 200; i++) {
    const res = await api.get(`/api/webhooks/${id}`);
    if (done(res.body)) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Endpoint ${id} never reached the state`);
}

// deno-lint-ignore no-explicit-any -- attempts as JSON
async function waitForLog(api: Client, id: string, done: (data: any[]) => boolean) {
  for (let i = 0; i < 200; i++) {
    const res = await api.get(`/api/webhooks/${id}/deliveries`);
    assert.equal(res.status, 200);
    if (done(res.body.data)) return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Deliveries log of ${id} never reached the state`);
}
