/**
 * The log head makes seq commit-ordered: a reader that polls `seq > last` straight from the events
 * table, while writers on several connections commit, never skips a seq that commits later.
 */
import assert from "node:assert/strict";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { created, updated } from "../../support/events.ts";

Deno.test("a reader polling seq > last never skips or reorders a seq while 8 writers on 4 connections commit", async () => {
  const schema = await createTestSchema();
  const stores = await Promise.all(
    Array.from({ length: 4 }, () => PostgresEventStore.open(schema.url, { maxConnections: 1 })),
  );
  const reader = createPool(schema.url, 1, () => {});
  try {
    for (const store of stores) await store.replay(() => {});
    const perWriter = 60;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      const store = stores[w % stores.length];
      for (let i = 0; i < perWriter; i++) {
        const n = w * 100 + i; // Emails c<n> and c<n + 2000> never collide.
        await store.append(i % 3 === 0 ? [created(n)] : [created(n), updated(n, 2)]);
      }
    });
    // Every writer's events: one create in three appends, a create and an update in the others.
    const total = 8 * perWriter + 8 * (perWriter - perWriter / 3);
    let writing = true;
    const done = Promise.all(writers).finally(() => (writing = false));
    const seen: number[] = [];
    let polls = 0;
    // Until every event is seen (one store's lastSeq may lag the others' commits), within 60 s.
    const deadline = performance.now() + 60_000;
    while ((writing || seen.length < total) && performance.now() < deadline) {
      // No guard of any kind: the plain query a naive follower would make.
      const { rows } = await reader.query<{ seq: string }>(
        "SELECT seq FROM events WHERE seq > $1 ORDER BY seq LIMIT 50",
        [seen.at(-1) ?? 0],
      );
      polls++;
      for (const { seq } of rows) {
        assert.equal(
          Number(seq),
          seen.length + 1,
          `after seq ${seen.at(-1)} the reader saw ${seq}`,
        );
        seen.push(Number(seq));
      }
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await done;
    assert.equal(seen.length, total);
    assert.ok(polls > 10, `the reader polled only ${polls} times: it did not race the writers`);
  } finally {
    for (const store of stores) await store.close();
    await reader.end();
    await schema.drop();
  }
});
