/**
 * A commit whose answer is lost (the connection drops after the statement reached the database)
 * is reported as of unknown outcome, not as "nothing was changed".
 */
import assert from "node:assert/strict";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { CommitOutcomeUnknownError } from "../../../src/store/store_errors.ts";
import { created } from "../../support/events.ts";
import { createTestSchema } from "../../support/postgres.ts";
import { startTcpProxy } from "../../support/tcp_proxy.ts";

Deno.test("an append whose answer the connection lost is reported as of unknown outcome, and did commit", async () => {
  const schema = await createTestSchema();
  const target = new URL(schema.url);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
  const url = new URL(schema.url);
  url.port = String(proxy.port);
  const store = await PostgresEventStore.open(url.toString());
  const direct = await PostgresEventStore.open(schema.url);
  try {
    await store.append([created(1)]);
    // The statement reaches the server, its answer does not come back.
    proxy.cut("reset");
    const lost = created(2);
    await assert.rejects(() => store.append([lost]), CommitOutcomeUnknownError);
    await direct.waitForCommit(1, AbortSignal.timeout(5000));
    const events = await direct.readFrom(0, 10);
    assert.ok(events.some((event) => event.id === lost.id), "the lost answer's event committed");
  } finally {
    proxy.restore();
    await store.close();
    await direct.close();
    proxy.close();
    await schema.drop();
  }
});
