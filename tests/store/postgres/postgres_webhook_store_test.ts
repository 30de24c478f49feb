/** The webhook store contract against PostgreSQL, each test in a fresh schema dropped after. */
import assert from "node:assert/strict";
import { PostgresWebhookStore } from "../../../src/store/postgres/postgres_webhook_store.ts";
import { StoreUnavailableError } from "../../../src/store/store_errors.ts";
import type { WebhookStore } from "../../../src/store/webhook_store.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { ulid } from "../../support/events.ts";
import { attempt, endpoint, webhookStoreContract } from "../webhook_store_contract.ts";

webhookStoreContract("postgres webhook store", async () => {
  const schema = await createTestSchema();
  const opened: WebhookStore[] = [];
  const open = async () => {
    const store = await PostgresWebhookStore.open(schema.url);
    opened.push(store);
    return store;
  };
  return {
    open: async () => {
      await opened.at(-1)?.close();
      return await open();
    },
    openShared: open,
    durable: true,
    dispose: async () => {
      for (const store of opened) await store.close();
      await schema.drop();
    },
  };
});

Deno.test("postgres webhook store: the deliveries log keeps the newest attempts in the table too", async () => {
  const schema = await createTestSchema();
  try {
    const store = await PostgresWebhookStore.open(schema.url, { holder: "replica-a" });
    await store.put(endpoint(1));
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 80 }, (_, i) => store.recordAttempt(ulid(1), attempt(round * 80 + i))),
      );
    }
    const rows = await schema.query(
      `SELECT count(*)::int AS n, min(seq)::int AS first, max(sent_by) AS sent_by
       FROM ${schema.name}.webhook_attempts`,
    );
    assert.deepEqual(rows, [{ n: 100, first: 140, sent_by: "replica-a" }]);
    await store.close();
  } finally {
    await schema.drop();
  }
});

Deno.test("postgres webhook store: writes and refreshes fail with StoreUnavailableError while the database is unreachable", async () => {
  const schema = await createTestSchema();
  try {
    const store = await PostgresWebhookStore.open(schema.url);
    await store.put(endpoint(1));
    // The store's pool is ended: every query fails as with connections lost for good.
    await store.pool.end();
    await assert.rejects(store.put(endpoint(1, { version: 2 })), StoreUnavailableError);
    await assert.rejects(store.refresh(), StoreUnavailableError);
    await assert.rejects(store.checkpoint(ulid(1), 3), StoreUnavailableError);
    assert.equal(store.get(ulid(1))!.version, 1);
  } finally {
    await schema.drop();
  }
});
