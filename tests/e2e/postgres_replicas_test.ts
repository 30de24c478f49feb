/**
 * Two real server processes on one PostgreSQL database (DATABASE_URL, a schema of the test's own):
 * a write on one is read on the other, and racing creates with one email give one 201 and one 409.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { createTestSchema } from "../support/postgres.ts";

/** GETs `path` on `api` until it answers 200 or `ms` pass; returns the last answer and its lag. */
async function readWhenThere(api: ApiClient, path: string, ms = 5000) {
  const started = performance.now();
  for (;;) {
    const res = await api.get(path);
    if (res.status === 200 || performance.now() - started > ms) {
      return { res, lagMs: performance.now() - started };
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

Deno.test("two replicas on one database: writes on A are read on B, and racing creates with one email give one 201 and one 409", async () => {
  const schema = await createTestSchema();
  const servers: TestServer[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      servers.push(await startServer({ env: { DATABASE_URL: schema.url } }));
    }
    const token = await makeToken();
    const [a, b] = servers.map((server) => new ApiClient(server.url, token));

    const lags: number[] = [];
    for (let i = 0; i < 100; i++) {
      const created = await a.create(newCustomer());
      const { res, lagMs } = await readWhenThere(b, `/api/customers/${created.id}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, created);
      lags.push(lagMs);
    }
    lags.sort((x, y) => x - y);
    console.log(
      `replica lag over 100 creates: p50 ${lags[50].toFixed(1)} ms, p99 ${lags[98].toFixed(1)} ms`,
    );

    for (let round = 0; round < 5; round++) {
      const body = newCustomer();
      const answers = await Promise.all([
        a.post("/api/customers", { json: body }),
        b.post("/api/customers", { json: body }),
      ]);
      assert.deepEqual(
        answers.map((r) => r.status).sort(),
        [201, 409],
        answers.map((r) => r.text).join(),
      );
    }

    // Min-Log-Seq: B answers once it has applied A's write, or 503 replica-behind after 5 s.
    const head = async () =>
      Number((await schema.query(`SELECT seq FROM ${schema.name}.log_head`))[0].seq);
    const fresh = await a.create(newCustomer());
    const seen = await b.get(`/api/customers/${fresh.id}`, {
      headers: { "min-log-seq": String(await head()) },
    });
    assert.equal(seen.status, 200, seen.text);
    const ahead = await b.get("/api/customers", {
      headers: { "min-log-seq": String(await head() + 1000) },
    });
    assert.equal(ahead.status, 503, ahead.text);
    assert.match(String((ahead.body as { type: string }).type), /replica-behind/);
    assert.equal(ahead.headers.get("retry-after"), "1");
    // Log-Seq names what this replica has applied, as on every answer of the API.
    assert.equal(ahead.headers.get("log-seq"), String(await head()), "Log-Seq on replica-behind");
    const bad = await b.get("/api/customers", { headers: { "min-log-seq": "soon" } });
    assert.equal(bad.status, 400, bad.text);

    const all = await Promise.all([a.listAll(), b.listAll()].map((p) => p.catch(() => [])));
    assert.equal(all[0].length, 106);
    assert.deepEqual(all[0], all[1]);
  } finally {
    for (const server of servers) await server.dispose();
    await schema.drop();
  }
});
