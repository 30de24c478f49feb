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

Deno.test("postgres webhook store: a checkpoint or attempt written during a flush is written soon after, and at close", async () => {
  const schema = await createTestSchema();
  try {
    const store = await PostgresWebhookStore.open(schema.url, { lazyWriteMs: 20 });
    await store.put(endpoint(1));
    // The first is flushed by the refresh; the second arrives during that flush, which takes it
    // while its own timer is still armed.
    const first = store.checkpoint(ulid(1), 1);
    const refreshed = store.refresh();
    const second = store.checkpoint(ulid(1), 2);
    await Promise.all([first, refreshed, second]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = [store.checkpoint(ulid(1), 3), store.recordAttempt(ulid(1), attempt(3))];
    const settled = await Promise.race([
      Promise.all(later).then(() => "written"),
      new Promise((resolve) => setTimeout(() => resolve("still waiting after 2 s"), 2000)),
    ]);
    assert.equal(settled, "written");
    const rows = await schema.query(`SELECT last_seq FROM ${schema.name}.webhook_endpoints`);
    assert.equal(Number(rows[0].last_seq), 3);
    // Waiting at close: written, not refused because the store is closing.
    const atClose = [store.checkpoint(ulid(1), 4), store.recordAttempt(ulid(1), attempt(4))];
    await store.close();
    await Promise.all(atClose);
    const reopened = await PostgresWebhookStore.open(schema.url);
    assert.equal(reopened.get(ulid(1))!.last_seq, 4);
    assert.deepEqual(reopened.attempts(ulid(1)).map((a) => a.seq), [4, 3]);
    await reopened.close();
  } finally {
    await schema.drop();
  }
});

Deno.test("postgres webhook store: a refresh writes what waited when it was called, without waiting for writes that keep coming", async () => {
  const schema = await createTestSchema();
  try {
    const store = await PostgresWebhookStore.open(schema.url, { lazyWriteMs: 20 });
    await store.put(endpoint(1));
    // Deliveries under steady traffic: a checkpoint and an attempt every millisecond, for at most
    // three seconds.
    let seq = 0;
    let producing = true;
    const writes: Promise<void>[] = [];
    const producer = (async () => {
      const until = performance.now() + 3000;
      while (producing && performance.now() < until) {
        seq++;
        writes.push(store.checkpoint(ulid(1), seq), store.recordAttempt(ulid(1), attempt(seq)));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = seq;
    const started = performance.now();
    await store.refresh();
    const tookMs = performance.now() - started;
    producing = false;
    await producer;
    assert.ok(tookMs < 1000, `the refresh took ${Math.round(tookMs)} ms`);
    const rows = await schema.query(`SELECT last_seq FROM ${schema.name}.webhook_endpoints`);
    assert.ok(Number(rows[0].last_seq) >= before, `${rows[0].last_seq} < ${before}`);
    await Promise.all(writes);
    await store.close();
  } finally {
    await schema.drop();
  }
});

Deno.test("postgres webhook store: replicas taking turns at an endpoint trim its log to a bound and keep the newest", async () => {
  const schema = await createTestSchema();
  try {
    const a = await PostgresWebhookStore.open(schema.url, { holder: "replica-a" });
    const b = await PostgresWebhookStore.open(schema.url, { holder: "replica-b" });
    await a.put(endpoint(1));
    await b.refresh();
    // The lease moves between them: each writes 80 attempts in turn, seqs in the order written.
    let seq = 0;
    for (let turn = 0; turn < 6; turn++) {
      const store = turn % 2 === 0 ? a : b;
      await Promise.all(
        Array.from({ length: 80 }, () => store.recordAttempt(ulid(1), attempt(++seq))),
      );
    }
    const [counts] = await schema.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE seq > ${seq - 100})::int AS newest
       FROM ${schema.name}.webhook_attempts`,
    );
    assert.equal(counts.newest, 100, "the newest 100 attempts are kept");
    // Each replica cuts below its own newest 100: another's older rows go with them.
    assert.ok(Number(counts.n) <= 2 * 100 + 80, `${counts.n} rows kept`);
    await a.refresh(ulid(1));
    assert.deepEqual(
      a.attempts(ulid(1)).map((kept) => kept.seq),
      Array.from({ length: 100 }, (_, i) => seq - i),
    );
    await a.close();
    await b.close();
  } finally {
    await schema.drop();
  }
});
