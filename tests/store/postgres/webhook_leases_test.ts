/**
 * Delivery leases on a real PostgreSQL schema: of replicas ticking together exactly one owns an
 * endpoint at any moment; a holder that can no longer reach the database stops owning before
 * another may take the lease, which another then does.
 */
import assert from "node:assert/strict";
import { PostgresWebhookStore } from "../../../src/store/postgres/postgres_webhook_store.ts";
import { WebhookLeases } from "../../../src/store/postgres/webhook_leases.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { ulid } from "../../support/events.ts";
import { endpoint } from "../webhook_store_contract.ts";

const TTL_MS = 1000;
const TICK_MS = 200;

async function replica(url: string, name: string) {
  const store = await PostgresWebhookStore.open(url, { holder: name });
  const leases: WebhookLeases = new WebhookLeases({
    pool: store.pool,
    holder: name,
    refresh: () => store.refresh(),
    ids: () => store.list().map((e) => e.id),
    onChange: () => {},
    warn: () => {},
    ttlMs: TTL_MS,
    tickMs: TICK_MS,
  });
  return { name, store, leases };
}

Deno.test("webhook leases: one owner at a time, and a lost database moves the endpoint", async () => {
  const schema = await createTestSchema();
  const replicas = await Promise.all(["a", "b", "c"].map((name) => replica(schema.url, name)));
  try {
    await replicas[0].store.put(endpoint(1));
    await replicas[0].store.put(endpoint(2, { enabled: false }));
    for (const r of replicas) r.leases.start();
    // Sampled every 20 ms for 2 s: never two owners, and one from the first ticks on.
    const owners = (id: string) => replicas.filter((r) => r.leases.owns(id)).map((r) => r.name);
    let owned = 0;
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = owners(ulid(1));
      assert.ok(now.length <= 1, `owned by ${now.join(" and ")}`);
      if (now.length === 1) owned++;
      assert.deepEqual(owners(ulid(2)), [], "a disabled endpoint is not taken");
    }
    assert.ok(owned >= 90, `owned in ${owned} of 100 samples`);

    // The holder's connections die: it stops owning at its deadline, then another takes over.
    const holder = replicas.find((r) => r.leases.owns(ulid(1)))!;
    await holder.store.pool.end();
    const lostAt = performance.now();
    let released = 0;
    let taken = 0;
    while (performance.now() - lostAt < 3 * TTL_MS) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const now = owners(ulid(1));
      assert.ok(now.length <= 1, `owned by ${now.join(" and ")}`);
      if (released === 0 && !holder.leases.owns(ulid(1))) released = performance.now() - lostAt;
      if (now.length === 1 && now[0] !== holder.name) {
        taken = performance.now() - lostAt;
        break;
      }
    }
    assert.ok(released > 0 && released <= TTL_MS, `released after ${released} ms`);
    assert.ok(taken > released && taken <= TTL_MS + 2 * TICK_MS, `taken after ${taken} ms`);
    await holder.leases.stop();

    // A clean stop gives the lease back: the last replica takes it at its next tick.
    const next = replicas.find((r) => r.leases.owns(ulid(1)))!;
    await next.leases.stop();
    const last = replicas.find((r) => r !== holder && r !== next)!;
    const stoppedAt = performance.now();
    while (!last.leases.owns(ulid(1))) {
      assert.ok(performance.now() - stoppedAt < 2 * TICK_MS + 500, "not taken after a stop");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    for (const r of replicas) {
      await r.leases.stop();
      await r.store.close().catch(() => {});
    }
    await schema.drop();
  }
});
