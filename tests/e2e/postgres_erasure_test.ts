/**
 * Erasure across replicas on PostgreSQL, through two real servers on one schema: a customer
 * deleted on one replica, after both replicas read its events (so they sit in each replica's
 * memory: recent events, feed index), is gone from both replicas' feed, event stream and history,
 * and from every table (each row of each, as `pg_dump --data-only` would write it); its
 * `customer.deleted` stays.
 */
import assert from "node:assert/strict";
import { assertProblem, newCustomer } from "../support/api.ts";
import { ALL_PLACES, eventually, feedText, placesShowing } from "../support/erasure_probe.ts";
import { createTestSchema, type TestSchema } from "../support/postgres.ts";
import { ReplicaSet } from "../support/replica_set.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

/**
 * Every row of every table of the schema, as text: what `pg_dump --data-only` writes, read with SQL
 * so that it needs no PostgreSQL client of the server's version on the machine.
 */
async function dumpedRows(schema: TestSchema): Promise<string> {
  const tables = await schema.query(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = '${schema.name}' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  assert.ok(tables.length > 0, `no table in ${schema.name}`);
  const lines: string[] = [];
  for (const { relname } of tables) {
    const table = `${schema.name}."${String(relname).replaceAll('"', '""')}"`;
    for (const { row } of await schema.query(`SELECT t::text AS row FROM ${table} t`)) {
      lines.push(`${relname}: ${row}`);
    }
  }
  return lines.join("\n");
}

Deno.test("a customer deleted on one replica leaves every replica's feed, stream and history, and every table; its delete stays", async () => {
  const schema = await createTestSchema();
  const set = await ReplicaSet.start(2, schema.url, await makeToken());
  try {
    const [a, b] = set.replicas.map((replica) => replica.api!);
    const marker = `Erasmus${crypto.randomUUID().slice(0, 8)}`;
    const victim = await a.create(
      newCustomer({ name: `${marker} One`, email: `${marker.toLowerCase()}@example.com` }),
    );
    const patched = await a.patch(`/api/customers/${victim.id}`, {
      json: { name: `${marker} Two` },
      contentType: MERGE_PATCH,
    });
    assert.equal(patched.status, 200, patched.text);
    const kept = await a.create(newCustomer());
    const keptSeq = Number((await a.get(`/api/customers/${kept.id}`)).headers.get("log-seq"));

    // Both replicas read the customer's events: they are now in each one's memory.
    for (const api of [a, b]) {
      await eventually(async () => (await feedText(api)).includes(kept.id), () => "B follows A");
      assert.deepEqual(await placesShowing(api, marker, victim.id, keptSeq), ALL_PLACES);
    }
    assert.ok((await dumpedRows(schema)).includes(marker));

    // Deleted on B: A learns of it only by following the log.
    const deleted = await b.delete(`/api/customers/${victim.id}`);
    assert.equal(deleted.status, 204, deleted.text);
    const deleteSeq = Number(deleted.headers.get("log-seq"));
    assert.ok(deleteSeq > keptSeq);
    for (const [name, api] of [["A", a], ["B", b]] as const) {
      let places: string[] = [];
      await eventually(
        async () => (places = await placesShowing(api, marker, victim.id, deleteSeq)).length === 0,
        () => `replica ${name} still shows the deleted customer in ${places.join(", ")}`,
      );
      assertProblem(await api.get(`/api/customers/${victim.id}/history`), 404);
      assertProblem(await api.get(`/api/customers/${victim.id}/versions/1`), 404);
      // The delete itself stays, with no personal data.
      const own = JSON.parse(await feedText(api, victim.id).then((text) => text.split("\n")[0]));
      assert.deepEqual(
        own.data.map((e: { seq: number; type: string }) => [e.seq, e.type]),
        [[deleteSeq, "customer.deleted"]],
      );
      assert.ok((await feedText(api)).includes(kept.id), "the other customer stays");
    }
    let rows = "";
    await eventually(
      async () => !(rows = await dumpedRows(schema)).includes(marker),
      () =>
        `the marker is still in the tables: ${rows.split("\n").filter((l) => l.includes(marker))}`,
    );
    assert.ok(rows.includes(victim.id), "its customer.deleted event stays");

    // How soon the other replica stops serving a deleted customer it had read: 20 deletes on B,
    // each customer's feed polled on A every 2 ms from B's 204 on.
    const lags: number[] = [];
    for (let i = 0; i < 20; i++) {
      const name = `Lagging${crypto.randomUUID().slice(0, 8)}`;
      const customer = await a.create(newCustomer({ name }));
      await eventually(async () => (await feedText(b, customer.id)).includes(name), () => "B");
      assert.ok((await feedText(a, customer.id)).includes(name));
      assert.equal((await b.delete(`/api/customers/${customer.id}`)).status, 204);
      const deletedAt = performance.now();
      while ((await a.get(`/api/events?customer_id=${customer.id}`)).text.includes(name)) {
        assert.ok(performance.now() - deletedAt < 10_000, "A still serves a deleted customer");
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      lags.push(performance.now() - deletedAt);
    }
    lags.sort((x, y) => x - y);
    console.log(
      `erasure seen on the other replica after: p50 ${lags[10].toFixed(1)} ms, max ${
        lags[19].toFixed(1)
      } ms`,
    );
  } finally {
    await set.dispose();
    await schema.drop();
  }
});
