/**
 * A webhook DELETE racing a PATCH on another PostgreSQL replica (two real replicas, `deno task
 * start` with DATABASE_URL of a schema of the test's own). The race is made to happen every time:
 * the test holds a KEY SHARE lock on the endpoint's row, which stops B's DELETE (it needs the row
 * exclusively) after B has read and checked version 1, but not A's PATCH (an update of non-key
 * columns). A's change commits while B's delete waits; once the lock goes, B's delete must see it.
 */
import assert from "node:assert/strict";
import { connectClient } from "../../src/store/postgres/pg_connection.ts";
import { createTestSchema } from "../support/postgres.ts";
import { ReplicaSet } from "../support/replica_set.ts";
import { makeToken } from "../support/tokens.ts";
import { Receiver } from "../support/webhook_receiver.ts";

const MANAGE = "customers:read customers:write webhooks:manage";

Deno.test("a DELETE with the old ETag on replica B after a PATCH on A committed meanwhile is 412 and deletes nothing", async () => {
  const schema = await createTestSchema();
  const receiver = new Receiver();
  const set = await ReplicaSet.start(2, schema.url, await makeToken({ scope: MANAGE }), {
    WEBHOOK_ALLOW_PRIVATE: "1",
  });
  const locker = await connectClient(schema.url);
  try {
    const [a, b] = set.replicas.map((replica) => replica.api!);
    const { rows: [{ pid }] } = await locker.query<{ pid: number }>(
      "SELECT pg_backend_pid() AS pid",
    );
    // B's statements time out after 2 s: on a loaded machine a round may miss the race (B's
    // delete not seen waiting in time, or timed out with 503 and rolled back); it runs again.
    let raced = 0;
    for (let round = 1; round <= 5 && raced === 0; round++) {
      const created = await a.post("/api/webhooks", {
        json: { url: receiver.url("/race"), enabled: false },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.id;
      assert.equal(created.headers.get("etag"), '"1"');

      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR KEY SHARE", [id]);
      let settled = false;
      const deleting = b.delete(`/api/webhooks/${id}`, { headers: { "if-match": '"1"' } })
        .finally(() => settled = true);
      // B has read version 1 and its delete waits on the row (nothing else of B touches it).
      let waiting = false;
      while (!waiting && !settled) {
        const { rows } = await locker.query(
          "SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
          [pid],
        );
        waiting = rows.length > 0;
        if (!waiting) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (!waiting) {
        await locker.query("ROLLBACK");
        await deleting;
        continue;
      }
      const patched = await a.patch(`/api/webhooks/${id}`, {
        json: { description: "from a" },
        headers: { "if-match": '"1"' },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.headers.get("etag"), '"2"');
      await locker.query("COMMIT");

      const deleted = await deleting;
      // Never 204: that is A's committed change dropped by a delete checked against version 1.
      if (deleted.status === 503) continue;
      assert.equal(deleted.status, 412, deleted.text);
      raced++;
      for (const api of [a, b]) {
        const kept = await api.get(`/api/webhooks/${id}`);
        assert.equal(kept.status, 200, kept.text);
        assert.equal(kept.body.description, "from a");
        assert.equal(kept.headers.get("etag"), '"2"');
      }
      // With the ETag A's change gave, B deletes it.
      const again = await b.delete(`/api/webhooks/${id}`, { headers: { "if-match": '"2"' } });
      assert.equal(again.status, 204, again.text);
      assert.equal((await a.get(`/api/webhooks/${id}`)).status, 404);
    }
    assert.equal(raced, 1, "no round made B's delete wait while A's change committed");
  } finally {
    await locker.query("ROLLBACK").catch(() => {});
    await locker.end();
    await set.dispose();
    await receiver.close();
    await schema.drop();
  }
});
