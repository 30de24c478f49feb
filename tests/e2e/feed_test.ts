/** Contract §8: the change feed: order, paging, filters, last_seq, long poll, Log-Seq, no noise. */
import assert from "node:assert/strict";
import { PUBLIC_EVENT_FIELDS } from "../support/customers.ts";
import { ApiClient, assertProblem, newCustomer } from "../support/api.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

// deno-lint-ignore no-explicit-any -- events are walked as plain JSON
type Event = any;

/** Reads the whole feed after `after` in pages of `limit`, with `query` filters. */
async function readAll(api: ApiClient, query = "", limit = 100, after = 0) {
  const events: Event[] = [];
  for (let page = 0; page < 10_000; page++) {
    const res = await api.get(`/api/events?after=${after}&limit=${limit}${query}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get("log-seq"), String(res.body.last_seq));
    events.push(...res.body.data);
    after = res.body.last_seq;
    if (!res.body.has_more) return { events, lastSeq: after };
  }
  throw new Error("The feed did not end");
}

Deno.test("the feed pages every event in seq order; filters keep last_seq moving past skipped events", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken({ sub: "alice" }));
  const ada = await api.create(newCustomer({ name: "Ada" }));
  const bob = await api.create(newCustomer({ name: "Bob" }));
  const patched = await api.patch(`/api/customers/${ada.id}`, {
    json: { name: "Ada King" },
    contentType: MERGE_PATCH,
  });
  assert.equal(patched.status, 200);
  assert.equal((await api.delete(`/api/customers/${bob.id}`)).status, 204);

  const all = await readAll(api, "", 1);
  assert.deepEqual(all.events.map((e) => [e.seq, e.type, e.customer_id, e.version]), [
    [1, "customer.created", ada.id, 1],
    [2, "customer.created", bob.id, 1],
    [3, "customer.updated", ada.id, 2],
    [4, "customer.deleted", bob.id, 2],
  ]);
  assert.deepEqual(Object.keys(all.events[2]), [...PUBLIC_EVENT_FIELDS]);
  assert.equal(all.events[2].actor, "alice");
  assert.equal(all.events[2].data.name, "Ada King");
  assert.equal(all.events[3].data, null);
  assert.equal(all.lastSeq, 4);

  const updates = await api.get("/api/events?type=customer.updated&type=customer.deleted");
  assert.deepEqual(updates.body.data.map((e: Event) => e.seq), [3, 4]);
  const ofBob = await api.get(`/api/events?customer_id=${bob.id}&limit=1`);
  assert.deepEqual([ofBob.body.data[0].seq, ofBob.body.last_seq, ofBob.body.has_more], [
    2,
    2,
    true,
  ]);
  // Only filtered-out events follow: last_seq moves to the head, has_more is false.
  const created = await api.get("/api/events?after=2&type=customer.created");
  assert.deepEqual([created.body.data, created.body.last_seq, created.body.has_more], [
    [],
    4,
    false,
  ]);
  // Nothing new: last_seq equals after.
  const none = await api.get("/api/events?after=4");
  assert.deepEqual([none.body.data, none.body.last_seq, none.body.has_more], [[], 4, false]);
});

Deno.test("bad or unknown feed parameters answer 400 problem+json", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  for (
    const query of [
      "limit=0",
      "limit=1001",
      "after=-1",
      "after=x",
      "wait=61",
      "type=customer.exploded",
      "customer_id=nope",
      "foo=1",
      "after=1&after=2",
    ]
  ) {
    const res = await api.get(`/api/events?${query}`);
    assertProblem(res, 400);
    assert.ok(res.headers.get("log-seq") !== null, `Log-Seq on the 400 of ${query}`);
  }
  const reader = new ApiClient(server.url, await makeToken({ scope: "customers:write" }));
  assertProblem(await reader.get("/api/events"), 403);
});

Deno.test("a long poll answers as soon as a matching event commits, and times out empty", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const started = performance.now();
  const timedOut = await api.get("/api/events?wait=1");
  assert.ok(performance.now() - started >= 900, "waited about a second");
  assert.deepEqual([timedOut.body.data, timedOut.body.last_seq], [[], 0]);

  const polling = api.get("/api/events?after=0&wait=30&type=customer.updated");
  const ada = await api.create(newCustomer());
  await new Promise((resolve) => setTimeout(resolve, 200));
  const woken = performance.now();
  await api.patch(`/api/customers/${ada.id}`, {
    json: { name: "Ada B" },
    contentType: MERGE_PATCH,
  });
  const res = await polling;
  assert.ok(performance.now() - woken < 5_000, "answered long before the 30 s wait");
  assert.deepEqual(res.body.data.map((e: Event) => e.type), ["customer.updated"]);
  assert.equal(res.body.last_seq, 2);
});

Deno.test("200 concurrent writes are read back from the feed gap-free and in order", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const results = await Promise.all(
    Array.from(
      { length: 200 },
      (_, i) => api.post("/api/customers", { json: newCustomer({ name: `C${i}` }) }),
    ),
  );
  const seqs = results.map((res) => Number(res.headers.get("log-seq")));
  assert.deepEqual([...seqs].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i + 1));
  const { events } = await readAll(api, "", 37);
  assert.deepEqual(events.map((e) => e.seq), Array.from({ length: 200 }, (_, i) => i + 1));
  for (const res of results) {
    const event = events[Number(res.headers.get("log-seq")) - 1];
    assert.equal(event.customer_id, res.body.id, "Log-Seq names the write's own event");
  }
});

Deno.test("every answer of /api/customers and /api/events carries Log-Seq; a no-op write keeps the version and writes no event", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const ada = await api.post("/api/customers", { json: newCustomer() });
  assert.equal(ada.headers.get("log-seq"), "1");
  const id = ada.body.id;
  assert.equal((await api.get(`/api/customers/${id}`)).headers.get("log-seq"), "1");
  assert.equal((await api.get("/api/customers")).headers.get("log-seq"), "1");
  assert.equal(
    (await api.get(`/api/customers/01JDQ8Z5K3M4N5P6Q7R8S9T0VW`)).headers.get("log-seq"),
    "1",
  );

  const noop = await api.patch(`/api/customers/${id}`, { json: {}, contentType: MERGE_PATCH });
  assert.equal(noop.status, 200);
  assert.equal(noop.headers.get("etag"), '"1"');
  assert.deepEqual(noop.body, ada.body);
  const { version: _, created_at: __, updated_at: ___, id: ____, ...fields } = ada.body;
  const same = await api.put(`/api/customers/${id}`, { json: fields });
  assert.equal(same.status, 200);
  assert.equal(same.body.version, 1);
  assert.equal(same.headers.get("log-seq"), "1");
  const feed = await api.get("/api/events");
  assert.equal(feed.body.data.length, 1, "no event for the no-op PATCH and PUT");

  const removed = await api.delete(`/api/customers/${id}`);
  assert.equal(removed.headers.get("log-seq"), "2");
});

Deno.test("the gate's 401, 403 and 429, a 404 and a 405 under /api/customers and /api/events carry Log-Seq too", async () => {
  await using server = await startServer({ env: { RATE_LIMIT: "5/s", RATE_LIMIT_BURST: "5" } });
  const token = await makeToken({ sub: "writer" });
  await new ApiClient(server.url, token).post("/api/customers", { json: newCustomer() });
  const readOnly = await makeToken({ sub: "reader", scope: "customers:read" });
  const answers: [string, string, Record<string, string>, number][] = [
    ["GET", "/api/customers", {}, 401],
    ["GET", "/api/events", { authorization: "Bearer nonsense" }, 401],
    ["POST", "/api/customers", { authorization: `Bearer ${readOnly}` }, 403],
    ["DELETE", "/api/events", { authorization: `Bearer ${readOnly}` }, 405],
    ["GET", "/api/customers/x/y/z", { authorization: `Bearer ${readOnly}` }, 404],
  ];
  for (const [method, path, headers, status] of answers) {
    const res = await fetch(`${server.url}${path}`, { method, headers });
    await res.body?.cancel();
    assert.equal(res.status, status, `${method} ${path}`);
    assert.equal(res.headers.get("log-seq"), "1", `Log-Seq on the ${status} of ${method} ${path}`);
  }
  let limited: Response | undefined;
  for (let i = 0; i < 20 && limited === undefined; i++) {
    const res = await fetch(`${server.url}/api/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    if (res.status === 429) limited = res;
  }
  assert.equal(limited?.headers.get("log-seq"), "1", "Log-Seq on the 429");
  const health = await fetch(`${server.url}/healthz`);
  await health.body?.cancel();
  assert.equal(health.headers.get("log-seq"), null, "only the API paths carry it");
});

Deno.test("a consumer following the feed through a restart ends with exactly GET /api/customers", async () => {
  const dataDir = await makeDataDir();
  try {
    const token = await makeToken();
    let server = await startServer({ dataDir });
    let api = new ApiClient(server.url, token);
    const replica = new Map<string, Event>();
    let after = 0;
    /** Reads the feed up to `until` (or until it is empty), applying each event to the replica. */
    const follow = async (until = Infinity) => {
      while (after < until) {
        const res = await api.get(`/api/events?after=${after}&limit=500`).catch(() => null);
        if (res?.status !== 200) return;
        for (const event of res.body.data) {
          if (event.data === null) replica.delete(event.customer_id);
          else replica.set(event.customer_id, event.data);
        }
        after = res.body.last_seq;
        if (!res.body.has_more && until === Infinity) return;
      }
    };
    const write = async (stopAt: number) => {
      const mine: string[] = [];
      while (Date.now() < stopAt) {
        const pick = mine.length === 0 ? 0 : Math.floor(Math.random() * 3);
        const id = mine[Math.floor(Math.random() * mine.length)];
        const res = pick === 0
          ? await api.post("/api/customers", { json: newCustomer() }).catch(() => null)
          : pick === 1
          ? await api.patch(`/api/customers/${id}`, {
            json: { name: `N ${Math.random()}` },
            contentType: MERGE_PATCH,
          }).catch(() => null)
          : await api.delete(`/api/customers/${id}`).catch(() => null);
        if (res === null) return;
        if (pick === 0 && res.status === 201) mine.push(res.body.id);
        if (pick === 2 && res.status === 204) mine.splice(mine.indexOf(id), 1);
      }
    };
    for (let life = 0; life < 2; life++) {
      const stopAt = Date.now() + 2_000;
      const writers = Array.from({ length: 8 }, () => write(stopAt));
      while (Date.now() < stopAt) await follow();
      await Promise.all(writers);
      if (life === 0) {
        await server.stop();
        server = await startServer({ dataDir });
        api = new ApiClient(server.url, token);
      }
    }
    const list = await api.get("/api/customers?limit=1");
    await follow(Number(list.headers.get("log-seq")));
    const all = await api.listAll();
    assert.ok(all.length > 0);
    assert.deepEqual(
      [...replica.values()].sort((a, b) => a.id < b.id ? -1 : 1),
      all,
    );
    await server.stop();
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("the feed reads the same after a clean restart and after kill -9 (erasure aside)", async () => {
  const dataDir = await makeDataDir();
  let server = await startServer({ dataDir });
  try {
    let api = new ApiClient(server.url, await makeToken());
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await api.create(newCustomer())).id);
    for (const id of ids.slice(0, 20)) {
      await api.patch(`/api/customers/${id}`, {
        json: { name: `Renamed ${id.slice(-4)}` },
        contentType: MERGE_PATCH,
      });
    }
    const deleted = new Set(ids.slice(15, 25));
    for (const id of deleted) await api.delete(`/api/customers/${id}`);
    const before = await readAll(api, "", 7);
    assert.equal(before.lastSeq, 60);
    // A clean stop and a start that replayed events compact the log, which erases the deleted
    // customers' earlier events (their customer.deleted events stay): the only change allowed.
    const erased = {
      events: before.events.filter((event: Event) =>
        !deleted.has(event.customer_id) || event.type === "customer.deleted"
      ),
      lastSeq: before.lastSeq,
    };
    assert.equal(erased.events.length, 60 - 10 - 5);
    for (const stop of ["SIGTERM", "SIGKILL"] as const) {
      await server.stop(stop);
      server = await startServer({ dataDir });
      api = new ApiClient(server.url, await makeToken());
      assert.deepEqual(await readAll(api, "", 7), erased, `the feed after ${stop}`);
    }
  } finally {
    // Stops whichever server is running, also when an assertion failed.
    await server.dispose();
    await removeDir(dataDir);
  }
});
