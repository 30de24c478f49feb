/** The group commit's function plans its statements once per connection (generic_plans.ts). */
import assert from "node:assert/strict";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { created } from "../../support/events.ts";

Deno.test("append_group runs with generic plans, and a group committed through it is stored", async () => {
  const schema = await createTestSchema();
  try {
    const store = await PostgresEventStore.open(schema.url, { maxConnections: 1 });
    try {
      const appends = [1, 2].map((n) => {
        const event = created(n);
        return store.append([event], { expected: { [event.id]: 0 } });
      });
      const stored = (await Promise.all(appends)).flat();
      assert.deepEqual(stored.map((e) => e.seq).sort(), [1, 2]);
    } finally {
      await store.close();
    }
    const rows = await schema.query(
      `SELECT p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = '${schema.name}' AND p.proname = 'append_group'`,
    );
    assert.deepEqual(rows, [{ proconfig: ["plan_cache_mode=force_generic_plan"] }]);
    const written = await schema.query(`SELECT count(*)::int AS n FROM ${schema.name}.customers`);
    assert.deepEqual(written, [{ n: 2 }]);
  } finally {
    await schema.drop();
  }
});
