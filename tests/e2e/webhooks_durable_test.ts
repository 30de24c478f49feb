/**
 * The deliveries log of an endpoint whose first event needed retries survives a clean restart
 * whole, and a kill -9 up to the attempts of its last moments, on the JSONL store.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { Receiver } from "../support/webhook_receiver.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { createTestSchema } from "../support/postgres.ts";

const MANAGE = "customers:read customers:write webhooks:manage";
const ENV = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s" };

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  Deno.test(`the deliveries log after two failed tries and 13 more events survives ${signal} and a restart`, async () => {
    const dataDir = await makeDataDir();
    const failing = new Receiver();
    const steady = new Receiver();
    try {
      const server = await startServer({ dataDir, env: ENV });
      const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
      const hook = (await api.post("/api/webhooks", { json: { url: failing.url() } })).body;
      const other = (await api.post("/api/webhooks", { json: { url: steady.url() } })).body;
      failing.behaviour = (_delivery, count) => count <= 2 ? 500 : 204;
      await api.create(newCustomer());
      await failing.waitFor((got) => got.length >= 3);
      for (let i = 0; i < 13; i++) await api.create(newCustomer());
      await failing.waitFor((got) => got.length >= 16);
      await steady.waitFor((got) => got.length >= 14);
      // Attempts share a sync every 100 ms: after that, kill -9 may not take them either.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = (await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data;
      const otherBefore = (await api.get(`/api/webhooks/${other.id}/deliveries`)).body.data;
      assert.deepEqual(
        before.map((a: { status_code: number }) => a.status_code).reverse().slice(0, 3),
        [500, 500, 204],
      );
      assert.equal(before.length, 16);
      await server.stop(signal);
      await server.dispose();
      await using again = await startServer({ dataDir, env: ENV });
      const api2 = new ApiClient(again.url, api.token);
      assert.deepEqual((await api2.get(`/api/webhooks/${hook.id}/deliveries`)).body.data, before);
      assert.deepEqual(
        (await api2.get(`/api/webhooks/${other.id}/deliveries`)).body.data,
        otherBefore,
      );
    } finally {
      await failing.close();
      await steady.close();
      await removeDir(dataDir);
    }
  });
}

Deno.test("on PostgreSQL the deliveries log after two failed tries and 13 more events survives SIGTERM and a restart", async () => {
  const schema = await createTestSchema();
  const failing = new Receiver();
  const env = { ...ENV, DATABASE_URL: schema.url };
  try {
    const server = await startServer({ env });
    const api = new ApiClient(server.url, await makeToken({ scope: MANAGE }));
    const hook = (await api.post("/api/webhooks", { json: { url: failing.url() } })).body;
    failing.behaviour = (_delivery, count) => count <= 2 ? 500 : 204;
    await api.create(newCustomer());
    await failing.waitFor((got) => got.length >= 3);
    for (let i = 0; i < 13; i++) await api.create(newCustomer());
    await failing.waitFor((got) => got.length >= 16);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = (await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data;
    assert.equal(before.length, 16);
    const stopped = await server.stop();
    assert.equal(stopped.code, 0);
    await server.dispose();
    await using again = await startServer({ env });
    const api2 = new ApiClient(again.url, api.token);
    assert.deepEqual((await api2.get(`/api/webhooks/${hook.id}/deliveries`)).body.data, before);
  } finally {
    await failing.close();
    await schema.drop();
  }
});
