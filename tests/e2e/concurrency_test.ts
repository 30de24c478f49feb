/** Contract §4 and §6: parallel writes — all succeed or conflict correctly; the log has no gaps. */
import assert from "node:assert/strict";
import { ApiClient, assertProblem, type Customer, newCustomer } from "../support/api.ts";
import { readSequenceNumbers } from "../support/event_log.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

Deno.test("concurrent writes", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    let writes = 0;
    const assertLogIsGapFree = async () => {
      const seqs = await readSequenceNumbers(server.dataDir);
      assert.equal(new Set(seqs).size, seqs.length, "a sequence number repeats");
      assert.deepEqual([...seqs].sort((a, b) => a - b), range(writes), "seq is not exactly 1..N");
    };

    await t.step("200 parallel POSTs with distinct emails all answer 201", async () => {
      const results = await Promise.all(
        Array.from({ length: 200 }, () => api.post("/api/customers", { json: newCustomer() })),
      );
      const statuses = results.map((r) => r.status);
      assert.deepEqual(statuses.filter((s) => s !== 201), [], "some POSTs were not 201");
      writes += 200;
      assert.equal(new Set(results.map((r) => r.body.id)).size, 200, "ids repeat");
      const listed = await api.listAll({}, 1000);
      assert.equal(listed.length, 200);
    });

    await t.step("the event log then holds sequence numbers exactly 1..200", async () => {
      await assertLogIsGapFree();
    });

    await t.step(
      "50 parallel POSTs with one email give exactly one 201, the rest 409",
      async () => {
        const email = newCustomer().email;
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            api.post("/api/customers", {
              json: newCustomer({ email: i % 2 ? email : (email as string).toUpperCase() }),
            })),
        );
        const created = results.filter((r) => r.status === 201);
        assert.equal(created.length, 1, `statuses ${results.map((r) => r.status)}`);
        for (const res of results.filter((r) => r.status !== 201)) assertProblem(res, 409);
        writes += 1;
        const found = await api.get(`/api/customers?email=${encodeURIComponent(email as string)}`);
        assert.deepEqual(found.body.data.map((c: Customer) => c.id), [created[0].body.id]);
        await assertLogIsGapFree();
      },
    );

    await t.step(
      "20 parallel PATCHes of one customer all apply, each its own version",
      async () => {
        const customer = await api.create(newCustomer());
        writes += 1;
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            api.patch(`/api/customers/${customer.id}`, {
              json: { metadata: { [`k${i}`]: "v" } },
              contentType: MERGE_PATCH,
            })),
        );
        assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
        writes += 20;
        const versions = results.map((r) => r.body.version).sort((a, b) => a - b);
        assert.deepEqual(versions, range(21).slice(1), "versions 2..21, each once");
        const final = await api.get(`/api/customers/${customer.id}`);
        assert.equal(final.body.version, 21);
        assert.equal(Object.keys(final.body.metadata).length, 20, "a PATCH was lost");
        await assertLogIsGapFree();
      },
    );

    await t.step('20 parallel PATCHes with If-Match "1" give one 200 and 19 × 412', async () => {
      const customer = await api.create(newCustomer());
      writes += 1;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.patch(`/api/customers/${customer.id}`, {
            json: { name: `Racer ${i}` },
            contentType: MERGE_PATCH,
            headers: { "if-match": '"1"' },
          })),
      );
      const ok = results.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, `statuses ${results.map((r) => r.status)}`);
      for (const res of results.filter((r) => r.status !== 200)) assertProblem(res, 412);
      writes += 1;
      const final = await api.get(`/api/customers/${customer.id}`);
      assert.deepEqual(final.body, ok[0].body);
      await assertLogIsGapFree();
    });

    await t.step("parallel DELETE and PATCH of one customer leave a consistent end", async () => {
      const customer = await api.create(newCustomer());
      writes += 1;
      const path = `/api/customers/${customer.id}`;
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => api.delete(path)),
        ...Array.from(
          { length: 5 },
          (_, i) => api.patch(path, { json: { name: `Late ${i}` }, contentType: MERGE_PATCH }),
        ),
      ]);
      const deletes = results.slice(0, 5).map((r) => r.status);
      const patches = results.slice(5).map((r) => r.status);
      assert.equal(deletes.filter((s) => s === 204).length, 1, `DELETE statuses ${deletes}`);
      assert.ok(deletes.every((s) => s === 204 || s === 404), `DELETE statuses ${deletes}`);
      assert.ok(patches.every((s) => s === 200 || s === 404), `PATCH statuses ${patches}`);
      writes += 1 + patches.filter((s) => s === 200).length;
      assertProblem(await api.get(path), 404);
      await assertLogIsGapFree();
    });
  } finally {
    await server.dispose();
  }
});
