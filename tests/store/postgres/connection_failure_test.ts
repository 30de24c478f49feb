import assert from "node:assert/strict";
import { isConnectionFailure } from "../../../src/store/postgres/connection_failure.ts";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { StoreUnavailableError } from "../../../src/store/store_errors.ts";
import { TEST_DATABASE_URL } from "../../support/postgres.ts";
import { startTcpProxy } from "../../support/tcp_proxy.ts";

Deno.test("a refused or dropped connection is a connection failure, also wrapped; a statement the database refused is not", async () => {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
  const url = new URL(TEST_DATABASE_URL);
  url.port = String(proxy.port);
  const pool = createPool(url.toString(), 1, () => {});
  try {
    const before = await pool.query("SELECT 1").then(() => undefined, (error) => error);
    assert.equal(before, undefined, "the proxy passes queries before the cut");
    const wrong = await pool.query("SELEKT 1").catch((error) => error);
    assert.equal(wrong.code, "42601");
    assert.equal(isConnectionFailure(wrong), false);
    assert.equal(isConnectionFailure(new StoreUnavailableError(wrong)), false);

    proxy.cut("reset");
    const dropped = await pool.query("SELECT 1").catch((error) => error);
    assert.ok(dropped instanceof Error, "the query failed");
    assert.equal(isConnectionFailure(dropped), true, String(dropped));
    proxy.cut("refuse");
    const gone = await pool.query("SELECT 1").catch((error) => error);
    assert.equal(isConnectionFailure(gone), true, String(gone));
    assert.equal(isConnectionFailure(new StoreUnavailableError(gone)), true);
  } finally {
    proxy.close();
    await pool.end();
  }
});
