import assert from "node:assert/strict";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { TEST_DATABASE_URL } from "../../support/postgres.ts";
import { startTcpProxy } from "../../support/tcp_proxy.ts";

Deno.test("a pooled client whose connection drops while checked out has its error heard and fails its query; the pool goes on", async () => {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
  const url = new URL(TEST_DATABASE_URL);
  url.port = String(proxy.port);
  const pool = createPool(url.toString(), 2, () => {});
  try {
    const idle = await pool.connect();
    const busy = await pool.connect();
    // The pool listens only to idle clients; Node ends the process on an unheard "error" event.
    for (const client of [idle, busy]) {
      const events = client as unknown as { listenerCount(event: string): number };
      assert.ok(events.listenerCount("error") > 0, "a checked-out client has an error listener");
    }
    const running = busy.query("SELECT pg_sleep(2)").then(() => undefined, (error) => error);
    proxy.cut();
    assert.ok((await running) instanceof Error, "the running query failed");
    await new Promise((resolve) => setTimeout(resolve, 200));
    idle.release(true);
    busy.release(true);
    proxy.restore();
    assert.deepEqual((await pool.query("SELECT 1 AS one")).rows, [{ one: 1 }]);
  } finally {
    proxy.close();
    await pool.end();
  }
});
