/**
 * A server on PostgreSQL whose database connection is cut (a TCP proxy in between): writes answer
 * 503 with Retry-After, reads go on from memory, /readyz answers 503, and all of it recovers by
 * itself once the connection is back, without a restart. The database must answer until the
 * server listens (it migrates the schema): without it the server refuses to start, saying why.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { runUntilExit, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { createTestSchema } from "../support/postgres.ts";
import { startTcpProxy } from "../support/tcp_proxy.ts";

/** Calls `probe` until it returns true or `ms` pass. */
async function eventually(probe: () => Promise<boolean>, what: string, ms = 15_000) {
  const until = performance.now() + ms;
  while (!(await probe())) {
    if (performance.now() > until) throw new Error(`Not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test("with the database cut, writes answer 503 and reads go on; both recover by themselves", async () => {
  const schema = await createTestSchema();
  const target = new URL(schema.url);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
  const url = new URL(schema.url);
  url.port = String(proxy.port);
  const server = await startServer({ env: { DATABASE_URL: url.toString() } });
  try {
    const api = new ApiClient(server.url, await makeToken());
    const before = await api.create(newCustomer());

    proxy.cut();
    const refused = await api.post("/api/customers", { json: newCustomer() });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.match(String((refused.body as { type: string }).type), /storage-unavailable/);
    const read = await api.get(`/api/customers/${before.id}`);
    assert.equal(read.status, 200, read.text);
    await eventually(async () => (await api.get("/readyz")).status === 503, "/readyz 503");

    proxy.restore();
    await eventually(async () => (await api.get("/readyz")).status === 200, "/readyz 200");
    await eventually(
      async () => (await api.post("/api/customers", { json: newCustomer() })).status === 201,
      "a create succeeds again",
    );
  } finally {
    await server.dispose();
    proxy.close();
    await schema.drop();
  }
});

Deno.test("with the database unreachable at start, the server refuses to start with exit 74 and one line naming DATABASE_URL", async () => {
  const schema = await createTestSchema();
  const target = new URL(schema.url);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
  const url = new URL(schema.url);
  url.port = String(proxy.port);
  proxy.cut();
  try {
    const ended = await runUntilExit({ env: { DATABASE_URL: url.toString() } });
    assert.equal(ended.code, 74, ended.stderr);
    assert.match(
      ended.stderr,
      /^customer-api cannot start: the database in DATABASE_URL cannot be used: /,
    );
    assert.ok(!/uncaught|\n\s+at /i.test(ended.stderr), ended.stderr);
    assert.ok(!ended.stdout.includes('"msg":"listening"'), "it never listened");
  } finally {
    proxy.close();
    await schema.drop();
  }
});
