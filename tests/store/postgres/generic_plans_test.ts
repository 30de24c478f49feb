/** The group commit's function plans its statements once per connection (generic_plans.ts). */
import assert from "node:assert/strict";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { createTestSchema } from "../../support/postgres.ts";

Deno.test("append_group runs with generic plans, and a group committed through it is stored", async () => {
  const schema = await createTestSchema();
  try {
    const store = await PostgresEventStore.open(schema.url, { maxConnections: 1 });
    try {
      const time = new Date().toISOString();
      const appends = ["01J0000000000000000000000A", "01J0000000000000000000000B"].map((id) =>
        store.append([{
          type: "customer.created",
          id,
          version: 1,
          time,
          actor: "test",
          request_id: crypto.randomUUID(),
          data: { id, email: `${id}@example.com` },
        } as never], { expected: { [id]: 0 } })
      );
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
