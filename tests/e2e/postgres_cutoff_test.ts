/**
 * A replica cut off from PostgreSQL (a TCP proxy in between) for longer than EVENT_RETENTION,
 * while another replica writes, compacts and drops the events it missed: once the connection is
 * back it goes on from the newest snapshot by itself, without a restart, and serves what the other
 * replica serves (a customer deleted meanwhile is gone, one changed meanwhile is changed).
 */
import assert from "node:assert/strict";
import { assertProblem, newCustomer } from "../support/api.ts";
import { eventually } from "../support/erasure_probe.ts";
import { createTestSchema } from "../support/postgres.ts";
import { ReplicaSet } from "../support/replica_set.ts";
import { makeToken } from "../support/tokens.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("a replica cut off longer than the retention goes on from the newest snapshot once it reconnects, without a restart", async () => {
  const schema = await createTestSchema();
  // A snapshot after every write, so retention soon finds two that cover the missed events.
  const env = { EVENT_RETENTION: "2s", SNAPSHOT_EVERY: "1" };
  const set = await ReplicaSet.start(2, schema.url, await makeToken(), env);
  const firstSeq = async () =>
    Number((await schema.query(`SELECT first_seq FROM ${schema.name}.log_start`))[0].first_seq);
  try {
    const [a, b] = set.replicas.map((replica) => replica.api!);
    const kept = await a.create(newCustomer());
    const gone = await a.create(newCustomer({ name: "Gone Soon" }));
    const moved = await a.create(newCustomer({ name: "Before" }));
    await eventually(
      async () => (await b.get(`/api/customers/${moved.id}`)).status === 200,
      () => "B follows A",
    );
    const seen = Number((await b.get("/api/customers")).headers.get("log-seq"));

    set.replicas[1].proxy.cut();
    assert.equal((await a.delete(`/api/customers/${gone.id}`)).status, 204);
    const patched = await a.patch(`/api/customers/${moved.id}`, {
      json: { name: "After", email: `after-${crypto.randomUUID()}@example.com` },
    });
    assert.equal(patched.status, 200, patched.text);
    const fresh = await a.create(newCustomer({ email: moved.email }));
    // Past the retention, A's compactions drop every event B has not applied.
    await sleep(2500);
    let begins = 0;
    await eventually(async () => {
      await a.create(newCustomer());
      return (begins = await firstSeq()) > seen + 1;
    }, () => `the log still begins at ${begins}, B applied ${seen}`);

    set.replicas[1].proxy.restore();
    await eventually(
      async () => JSON.stringify(await b.listAll()) === JSON.stringify(await a.listAll()),
      () => "B serves what A serves",
      20_000,
    );
    assertProblem(await b.get(`/api/customers/${gone.id}`), 404);
    assert.equal((await b.get(`/api/customers/${moved.id}`)).body.name, "After");
    assert.equal((await b.get(`/api/customers/${fresh.id}`)).body.email, moved.email);
    assert.equal((await b.get(`/api/customers/${kept.id}`)).status, 200);
    // The email that passed from one customer to another is taken on B too.
    const taken = await b.post("/api/customers", { json: newCustomer({ email: moved.email }) });
    assert.equal(taken.status, 409, taken.text);
    // It takes writes again, and A reads them.
    const late = await b.create(newCustomer());
    await eventually(
      async () => (await a.get(`/api/customers/${late.id}`)).status === 200,
      () => "A follows B",
    );
    const feed = await b.get(`/api/events?after=${await firstSeq() - 1}`);
    assert.equal(feed.status, 200, feed.text);
    assert.ok(feed.body.data.some((e: { customer_id: string }) => e.customer_id === late.id));

    const stopped = await set.replicas[1].server!.stop();
    assert.match(stopped.stdout, /went on from a snapshot/);
  } finally {
    await set.dispose();
    await schema.drop();
  }
});
