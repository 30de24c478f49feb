/** The schema is created once when several replicas start at the same moment. */
import assert from "node:assert/strict";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { SCHEMA_VERSION } from "../../../src/store/postgres/schema.ts";
import { createTestSchema } from "../../support/postgres.ts";

Deno.test("six replicas opening an empty schema at once all start, and the schema is migrated once", async () => {
  const schema = await createTestSchema();
  try {
    const stores = await Promise.all(
      Array.from({ length: 6 }, () => PostgresEventStore.open(schema.url, { maxConnections: 1 })),
    );
    for (const store of stores) await store.close();
    const rows = await schema.query(`SELECT version FROM ${schema.name}.schema_version`);
    assert.deepEqual(rows, [{ version: SCHEMA_VERSION }]);
    const head = await schema.query(`SELECT seq FROM ${schema.name}.log_head`);
    assert.deepEqual(head, [{ seq: "0" }]);
  } finally {
    await schema.drop();
  }
});
