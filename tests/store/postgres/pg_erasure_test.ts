/**
 * Erasure on PostgreSQL through the real server: once a deleted customer is erased, its name,
 * email and idempotency key are in no row of any table of the schema (events, snapshots, keys,
 * emails…); its `customer.deleted` event stays. The search reads every table as text, so a table
 * added later is searched too.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../../support/api.ts";
import { createTestSchema, type TestSchema } from "../../support/postgres.ts";
import { startServer } from "../../support/server.ts";
import { makeToken } from "../../support/tokens.ts";

/** The tables of the schema where any row, read as text, contains `needle` (case-insensitive). */
async function tablesHolding(schema: TestSchema, needle: string): Promise<string[]> {
  const tables = await schema.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema.name}'`,
  );
  const found: string[] = [];
  for (const { table_name } of tables) {
    const [{ n }] = await schema.query(
      `SELECT count(*) AS n FROM ${schema.name}.${table_name} t WHERE t::text ILIKE '%${needle}%'`,
    );
    if (Number(n) > 0) found.push(String(table_name));
  }
  return found.sort();
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test("after a delete on PostgreSQL the customer's personal data is in no table; its delete stays", async () => {
  const schema = await createTestSchema();
  try {
    // A snapshot after every write, so the customer is in the snapshots before it is deleted.
    await using server = await startServer({
      env: { DATABASE_URL: schema.url, SNAPSHOT_EVERY: "1" },
    });
    const client = new ApiClient(server.url, await makeToken());
    const marker = `Erasmus${crypto.randomUUID().slice(0, 8)}`;
    const gone = await client.create(
      newCustomer({ name: `${marker} One`, email: `${marker}@example.com` }),
      { "idempotency-key": `${marker}-key` },
    );
    const patched = await client.patch(`/api/customers/${gone.id}`, {
      json: { name: `${marker} Two`, metadata: { note: marker } },
    });
    assert.equal(patched.status, 200, patched.text);
    const kept = await client.create(newCustomer());
    await eventually(
      async () => (await tablesHolding(schema, marker)).includes("snapshot_chunks"),
      "a snapshot holds the customer",
    );
    assert.deepEqual(await tablesHolding(schema, marker), [
      "customers",
      "events",
      "idempotency_keys",
      "snapshot_chunks",
    ]);

    assert.equal((await client.delete(`/api/customers/${gone.id}`)).status, 204);
    await eventually(
      async () => (await tablesHolding(schema, marker)).length === 0,
      `the marker is gone from every table (still in ${await tablesHolding(schema, marker)})`,
    );
    const events = await schema.query(
      `SELECT type FROM ${schema.name}.events WHERE customer_id = '${gone.id}'`,
    );
    assert.deepEqual(events, [{ type: "customer.deleted" }]);
    assert.equal((await client.get(`/api/customers/${kept.id}`)).status, 200);

    // A restart starts from the snapshot, without the erased customer.
    const stopped = await server.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    await using again = await startServer({ env: { DATABASE_URL: schema.url } });
    const after = new ApiClient(again.url, await makeToken());
    assert.equal((await after.get(`/api/customers/${gone.id}`)).status, 404);
    assert.equal((await after.get(`/api/customers/${kept.id}`)).status, 200);
    assert.deepEqual(await tablesHolding(schema, marker), []);
  } finally {
    await schema.drop();
  }
});
