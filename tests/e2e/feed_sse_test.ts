/** Contract §8: the event stream: frames, resume, bookmarks, MAX_STREAMS, shutdown, stream tokens. */
import assert from "node:assert/strict";
import { ApiClient, assertProblem, newCustomer } from "../support/api.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { nextEvent, openStream } from "../support/sse_client.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

Deno.test("the stream sends id/event/data frames live and resumes after Last-Event-ID (which wins over after)", async () => {
  await using server = await startServer();
  const token = await makeToken();
  const api = new ApiClient(server.url, token);
  const auth = { authorization: `Bearer ${token}` };
  const ada = await api.create(newCustomer({ name: "Ada" }));
  const stream = await openStream(`${server.url}/api/events`, auth);
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get("content-type")!, /^text\/event-stream/);
  const first = await nextEvent(stream);
  assert.deepEqual([first?.id, first?.event], ["1", "customer.created"]);
  assert.equal(JSON.parse(first!.data!).customer_id, ada.id);
  await api.patch(`/api/customers/${ada.id}`, {
    json: { name: "Ada K" },
    contentType: MERGE_PATCH,
  });
  const live = await nextEvent(stream);
  assert.deepEqual([live?.id, live?.event], ["2", "customer.updated"]);
  assert.equal(JSON.parse(live!.data!).data.name, "Ada K");
  await stream.close();

  const resumed = await openStream(`${server.url}/api/events?after=0`, {
    ...auth,
    "last-event-id": "1",
  });
  assert.equal((await nextEvent(resumed))?.id, "2");
  await resumed.close();
});

Deno.test("after kill -9 during writes, a stream resumed with Last-Event-ID misses no acknowledged write", async () => {
  const dataDir = await makeDataDir();
  try {
    const token = await makeToken();
    const auth = { authorization: `Bearer ${token}` };
    let server = await startServer({ dataDir });
    let api = new ApiClient(server.url, token);
    const stream = await openStream(`${server.url}/api/events`, auth);
    const acknowledged = new Set<string>();
    let writing = true;
    const writers = Array.from({ length: 8 }, async () => {
      while (writing) {
        const res = await api.post("/api/customers", { json: newCustomer() }).catch(() => null);
        if (res?.status !== 201) return;
        acknowledged.add(res.body.id);
      }
    });
    const seen: number[] = [];
    while (seen.length < 20) seen.push(Number((await nextEvent(stream))!.id));
    await server.stop("SIGKILL");
    writing = false;
    await Promise.all(writers);
    await stream.close();

    server = await startServer({ dataDir });
    api = new ApiClient(server.url, token);
    const resumed = await openStream(`${server.url}/api/events`, {
      ...auth,
      "last-event-id": String(seen.at(-1)),
    });
    const ids = new Set<string>();
    const lastSeq = Number((await api.get("/api/customers")).headers.get("log-seq"));
    let seq = seen.at(-1)!;
    while (seq < lastSeq) {
      const frame = (await nextEvent(resumed))!;
      assert.equal(Number(frame.id), seq + 1, "no gap");
      seq = Number(frame.id);
      ids.add(JSON.parse(frame.data!).customer_id);
    }
    const all = new Set<string>();
    for (let after = 0, more = true; more;) {
      const page = await api.get(`/api/events?limit=1000&after=${after}`);
      for (const event of page.body.data) all.add(event.customer_id);
      [after, more] = [page.body.last_seq, page.body.has_more];
    }
    // 20 events were durable when the stream showed them; each of the 8 writers may have lost the
    // answer of its one request in flight to the kill, so at least 12 were acknowledged.
    assert.ok(acknowledged.size >= 20 - writers.length, `${acknowledged.size} acknowledged`);
    for (const id of acknowledged) assert.ok(all.has(id), `acknowledged ${id} is in the feed`);
    for (const id of ids) assert.ok(all.has(id));
    await resumed.close();
    await server.stop();
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("a filtered stream gets bookmark frames past skipped events; MAX_STREAMS answers 503 beyond it", async () => {
  await using server = await startServer({ env: { MAX_STREAMS: "2", SSE_HEARTBEAT: "1s" } });
  const token = await makeToken();
  const api = new ApiClient(server.url, token);
  const auth = { authorization: `Bearer ${token}` };
  const filtered = await openStream(`${server.url}/api/events?type=customer.deleted`, auth);
  const other = await openStream(`${server.url}/api/events`, auth);
  const third = await openStream(`${server.url}/api/events`, auth);
  assert.equal(third.status, 503);
  assert.match(third.text!, /too-many-streams/);
  assert.ok(third.headers.get("retry-after"));
  await other.close();
  await api.create(newCustomer());
  await api.create(newCustomer());
  // At the next heartbeat (SSE_HEARTBEAT=1s) a bookmark names the newest seq read.
  const bookmark = await nextEvent(filtered, 5_000);
  assert.deepEqual([bookmark?.event, bookmark?.id, bookmark?.data], [
    "bookmark",
    "2",
    '{"last_seq":2}',
  ]);
  await filtered.close();
});

Deno.test("SIGTERM closes open streams and long polls: the server exits promptly", async () => {
  const server = await startServer();
  const token = await makeToken();
  const streams = await Promise.all(
    [1, 2, 3].map(() =>
      openStream(`${server.url}/api/events`, { authorization: `Bearer ${token}` })
    ),
  );
  const api = new ApiClient(server.url, token);
  const polling = api.get("/api/events?wait=60").catch(() => null);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const result = await server.stop();
  assert.equal(result.code, 0, result.stderr);
  assert.ok(performance.now() - started < 5_000, "stopped within 5 s");
  for (const stream of streams) assert.equal(await stream.next(2_000), undefined, "stream ended");
  const poll = await polling;
  if (poll !== null) assert.equal(poll.status, 200);
  await server.dispose();
});

Deno.test("a stream token works as ?access_token= on the event stream only, and no log line contains it", async () => {
  const server = await startServer({ env: { LOG_LEVEL: "debug" } });
  const api = new ApiClient(server.url, await makeToken());
  const minted = await api.post("/api/events/stream-tokens");
  assert.equal(minted.status, 201, minted.text);
  const streamToken: string = minted.body.token;
  assert.ok(minted.body.expires_in <= 60);

  const stream = await openStream(`${server.url}/api/events?access_token=${streamToken}`);
  assert.equal(stream.status, 200);
  await stream.close();
  // Not on the JSON feed, not on customers, not as a bearer token.
  const anonymous = new ApiClient(server.url, null);
  assertProblem(await anonymous.get(`/api/events?access_token=${streamToken}`), 401);
  assertProblem(await anonymous.get(`/api/customers?access_token=${streamToken}`), 401);
  assertProblem(await api.get(`/api/events?access_token=${streamToken}`), 400);
  assertProblem(await new ApiClient(server.url, streamToken).get("/api/customers"), 401);
  const forged = await openStream(`${server.url}/api/events?access_token=${streamToken}x`);
  assert.equal(forged.status, 401);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.ok(!metrics.includes(streamToken), "the token is in no metric label");

  const { stdout, stderr } = await server.stop();
  await server.dispose();
  assert.ok(stdout.includes("/api/events"), "the stream requests were logged");
  assert.ok(!stdout.includes(streamToken) && !stderr.includes(streamToken), "token logged");
  assert.ok(!stdout.includes("access_token"), "the query string is in no log line");
});

Deno.test("an idle stream gets a heartbeat comment every SSE_HEARTBEAT, and nothing more often", async () => {
  await using server = await startServer({ env: { SSE_HEARTBEAT: "1s" } });
  const token = await makeToken();
  const stream = await openStream(`${server.url}/api/events`, { authorization: `Bearer ${token}` });
  assert.equal(stream.status, 200);
  const opened = performance.now();
  const beats: number[] = [];
  while (performance.now() - opened < 3_500) {
    const frame = await stream.next(2_500);
    assert.deepEqual(frame, { comment: "heartbeat" }, "an idle stream sends only heartbeats");
    beats.push(performance.now() - opened);
  }
  await stream.close();
  // Three or four beats in 3.5 s, each about a second after the one before.
  assert.ok(beats.length >= 3 && beats.length <= 5, `beats at ${beats.map(Math.round)} ms`);
  for (const [i, at] of beats.entries()) {
    const gap = at - (i === 0 ? 0 : beats[i - 1]);
    assert.ok(gap > 500 && gap < 2_500, `beat ${i} came ${Math.round(gap)} ms after the last`);
  }
});

Deno.test("a stream token past STREAM_TOKEN_TTL no longer opens the stream; a fresh one does", async () => {
  await using server = await startServer({ env: { STREAM_TOKEN_TTL: "1s" } });
  const api = new ApiClient(server.url, await makeToken());
  const minted = await api.post("/api/events/stream-tokens");
  assert.equal(minted.status, 201, minted.text);
  assert.equal(minted.body.expires_in, 1);
  const early = await openStream(`${server.url}/api/events?access_token=${minted.body.token}`);
  assert.equal(early.status, 200, "valid within its lifetime");
  await early.close();
  await new Promise((resolve) => setTimeout(resolve, 1_300));
  const late = await openStream(`${server.url}/api/events?access_token=${minted.body.token}`);
  assert.equal(late.status, 401);
  assert.match(late.headers.get("content-type")!, /^application\/problem\+json/);
  assert.match(late.text!, /expired/);
  const fresh = await api.post("/api/events/stream-tokens");
  const again = await openStream(`${server.url}/api/events?access_token=${fresh.body.token}`);
  assert.equal(again.status, 200);
  await again.close();
});
