/**
 * One round of a database outage on a live replica: replica A reaches PostgreSQL through a TCP
 * proxy that is cut at a chosen moment and kept cut longer than any connection or query timeout,
 * while replica B (never cut) goes on writing; then the proxy is restored. The round checks that
 * A never exited, showed the outage (/readyz 503, a warning line, `database_reachable 0`) and
 * recovered by itself: /readyz 200, writes succeed, and its feed, history, open streams and the
 * webhook deliveries caught up with everything B wrote, nothing lost and nothing twice.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "./api.ts";
import { parseSamples, sample } from "./metrics_text.ts";
import { createTestSchema } from "./postgres.ts";
import { assertFeedGapFree, type FeedEvent, readFeed } from "./replica_audit.ts";
import { startServer, type TestServer } from "./server.ts";
import { nextEvent, openStream } from "./sse_client.ts";
import { type CutMode, startTcpProxy } from "./tcp_proxy.ts";
import { makeToken } from "./tokens.ts";
import { Receiver, verify } from "./webhook_receiver.ts";

/** When the connection is cut. */
export type Moment =
  | "startup"
  | "index-build"
  | "write-burst"
  | "webhook-delivery"
  | "streams-open"
  | "following";

/** Longer than the connect (3 s) and query (5 s + 1 s) timeouts of every connection. */
const OUTAGE_MS = 7_000;
const SEED_EVENTS = 2_500;
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_SCHEDULE: "200ms,400ms,800ms,1s,1s,1s,1s,1s,1s,1s",
  WEBHOOK_TIMEOUT: "1s",
};

/** Calls `probe` until it returns true or `ms` pass. */
export async function eventually(probe: () => Promise<boolean>, what: string, ms = 20_000) {
  const until = performance.now() + ms;
  while (!(await probe().catch(() => false))) {
    if (performance.now() > until) throw new Error(`Not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates `count` customers through `api`, 16 at a time; resolves with the last Log-Seq. */
async function createMany(api: ApiClient, count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next++ < count) {
      const res = await api.post("/api/customers", { json: newCustomer() });
      assert.equal(res.status, 201, res.text);
    }
  }));
}

/** The database_reachable gauge of a replica. */
async function reachableGauge(api: ApiClient): Promise<number> {
  const res = await api.get("/metrics");
  return sample(parseSamples(res.text), "database_reachable");
}

/**
 * Runs one round; throws with what went wrong and A's output. Resolves with the background tasks
 * A reported failing (which parts the cut reached) and the ms from the restore to /readyz 200.
 */
export async function outageRound(
  moment: Moment,
  mode: CutMode,
): Promise<{ tasks: string[]; readyMs: number }> {
  const schema = await createTestSchema();
  const token = await makeToken({ scope: "customers:read customers:write webhooks:manage" });
  const target = new URL(schema.url);
  const proxy = startTcpProxy({ hostname: target.hostname, port: Number(target.port) });
  const proxied = new URL(schema.url);
  proxied.port = String(proxy.port);
  const receiver = new Receiver();
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  let output = "";
  let stopWriting = false;
  const writers: Promise<unknown>[] = [];
  /** Runs `write` until told to stop; a failure stops it and is thrown when the writers end. */
  const keepWriting = (write: () => Promise<unknown>) => {
    const writer = (async () => {
      try {
        while (!stopWriting) await write();
      } finally {
        stopWriting = true;
      }
    })();
    writer.catch(() => {}); // Thrown where the writers are awaited.
    writers.push(writer);
  };
  const cutAt = Promise.withResolvers<void>();
  const cut = () => {
    proxy.cut(mode);
    cutAt.resolve();
  };
  let webhookSecret = "";
  let registeredAt = 0;
  const register = async (api: ApiClient) => {
    const res = await api.post("/api/webhooks", { json: { url: receiver.url() } });
    assert.equal(res.status, 201, res.text);
    webhookSecret = res.body.secret;
    registeredAt = Number(res.headers.get("log-seq") ?? 0);
  };
  const startA = (until: "ready" | "listening", cutOn?: string) =>
    startServer({
      until,
      env: { ...ENV, DATABASE_URL: proxied.toString() },
      onLine: (line) => {
        output += line + "\n";
        if (cutOn !== undefined && line.includes(`"msg":"${cutOn}"`)) cut();
      },
    });
  try {
    // The webhook endpoint is registered on A when A starts first, so A likely delivers it.
    const seeded = moment === "startup" || moment === "index-build";
    if (!seeded) {
      a = await startA("ready");
      await register(new ApiClient(a.url, token));
    }
    b = await startServer({ env: { ...ENV, DATABASE_URL: schema.url } });
    const apiB = new ApiClient(b.url, token);
    if (seeded) {
      await register(apiB);
      await createMany(apiB, SEED_EVENTS);
      a = await startA("listening", moment === "startup" ? "listening" : "replay done");
    }
    const apiA = new ApiClient(a!.url, token);
    const acked: { id: string; version: number }[] = [];
    const writeOnA = async () => {
      const res = await apiA.post("/api/customers", { json: newCustomer() });
      if (res.status === 201) acked.push({ id: res.body.id, version: 1 });
      else assert.equal(res.status, 503, res.text);
      return res.status;
    };

    // Streams open on A before the cut, from its head.
    let streamFrom = 0;
    let stream: Awaited<ReturnType<typeof openStream>> | undefined;
    let longPoll: Promise<FeedEvent[]> | undefined;
    if (moment === "streams-open") {
      const head = await apiA.get("/api/events?limit=1");
      streamFrom = Number(head.headers.get("log-seq"));
      stream = await openStream(`${a!.url}/api/events?after=${streamFrom}`, {
        authorization: `Bearer ${token}`,
      });
      assert.equal(stream.status, 200);
      longPoll = apiA.get(`/api/events?after=${streamFrom}&wait=40`).then((res) => {
        assert.equal(res.status, 200, res.text);
        return res.body.data;
      });
      await sleep(200);
      cut();
    }
    if (moment === "write-burst") {
      for (let i = 0; i < 8; i++) {
        keepWriting(async () => (await writeOnA()) === 503 && await sleep(50));
      }
      await eventually(() => Promise.resolve(acked.length >= 40), "40 writes on A before the cut");
      cut();
    }
    if (moment === "webhook-delivery") {
      receiver.behaviour = (_delivery, count) => {
        if (count === 1) cut();
        return sleep(100).then(() => 204);
      };
      await apiB.post("/api/customers", { json: newCustomer() });
    }
    if (moment === "following") {
      keepWriting(() => apiB.post("/api/customers", { json: newCustomer() }));
      await sleep(300 + Math.random() * 300);
      cut();
    }
    await cutAt.promise;
    const cutTime = performance.now();

    // During the outage: A shows it, B goes on writing (a create, an update, a delete).
    await eventually(async () => (await apiA.get("/readyz")).status === 503, "A /readyz 503", 8000);
    // While A replays, every route but /healthz answers 503 starting, /metrics too.
    if (moment !== "startup") {
      await eventually(
        async () => (await reachableGauge(apiA)) === 0,
        "database_reachable 0",
        8000,
      );
    }
    const during = await apiB.post("/api/customers", { json: newCustomer() });
    assert.equal(during.status, 201, during.text);
    const patched = await apiB.patch(`/api/customers/${during.body.id}`, {
      json: { name: "Patched while A was cut" },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    const doomed = await apiB.post("/api/customers", { json: newCustomer() });
    assert.equal((await apiB.delete(`/api/customers/${doomed.body.id}`)).status, 204);
    assert.equal(await writeOnA(), 503, "a write on A answers 503 while it is cut");
    await sleep(Math.max(0, OUTAGE_MS - (performance.now() - cutTime)));
    proxy.restore();
    const restoredAt = performance.now();
    stopWriting = true;
    await Promise.all(writers);

    // After: A recovers by itself and catches up with B.
    await eventually(async () => (await apiA.get("/readyz")).status === 200, "A /readyz 200");
    const readyMs = Math.round(performance.now() - restoredAt);
    await eventually(async () => (await writeOnA()) === 201, "a write on A succeeds");
    await eventually(async () => (await reachableGauge(apiA)) === 1, "database_reachable 1");
    const last = await apiB.post("/api/customers", { json: newCustomer() });
    const head = Number(last.headers.get("log-seq"));
    const feedA = await readFeed(apiA, head);
    const feedB = await readFeed(apiB, head);
    assert.deepEqual(feedA, feedB, "A's feed is B's");
    assertFeedGapFree(feedA, head);
    for (const write of acked) {
      const found = feedA.filter((e) => e.customer_id === write.id && e.version === write.version);
      assert.equal(found.length, 1, `A's acknowledged create of ${write.id} is in the feed once`);
    }
    const history = await apiA.get(`/api/customers/${during.body.id}/history`, {
      headers: { "min-log-seq": String(head) },
    });
    assert.equal(history.status, 200, history.text);
    assert.deepEqual(history.body.data.map((e: FeedEvent) => e.version), [1, 2]);
    assert.equal((await apiA.get(`/api/customers/${doomed.body.id}`)).status, 404);

    if (stream !== undefined) {
      const seen: number[] = [];
      while (seen.at(-1) !== head) {
        const frame = await nextEvent(stream, 20_000);
        assert.ok(frame !== undefined, "the stream stayed open");
        seen.push(Number(frame.id));
      }
      await stream.close();
      const expected = feedA.filter((e) => e.seq > streamFrom).map((e) => e.seq);
      assert.deepEqual(seen, expected, "the stream delivered every event once, in order");
      const polled = await longPoll!;
      assert.ok(polled.length > 0 && polled[0].seq === expected[0], "the long poll answered");
    }

    // Every event since the endpoint's registration reaches the receiver under one webhook-id.
    const wanted = feedA.filter((e) => e.seq > registeredAt).map((e) => e.seq);
    await receiver.waitFor((got) => {
      const seqs = new Set(got.map((r) => r.event.seq));
      return wanted.every((seq) => seqs.has(seq));
    }, 30_000);
    const idOf = new Map<number, string>();
    for (const delivery of receiver.received) {
      verify(delivery, webhookSecret);
      const seq = delivery.event.seq;
      assert.equal(idOf.get(seq) ?? delivery.id, delivery.id, `seq ${seq} under one webhook-id`);
      idOf.set(seq, delivery.id);
    }

    const warned = output.split("\n").some((line) =>
      line.includes('"level":"warn"') && /database/i.test(line)
    );
    assert.ok(warned, "A logged a warning naming the database");
    assert.ok(!output.includes('"msg":"Unhandled rejection"'), "no rejection went unhandled");
    assert.equal((await apiA.get("/healthz")).status, 200);
    const stopped = await a!.stop();
    assert.equal(stopped.code, 0, "A never exited: it stopped cleanly when asked");
    assert.ok(!/uncaught/i.test(stopped.stderr), stopped.stderr);
    const tasks = output.split("\n").map((line) => /"task":"(\w+)"/.exec(line)?.[1]);
    return { tasks: [...new Set(tasks.filter((task) => task !== undefined))], readyMs };
  } catch (error) {
    stopWriting = true;
    await Promise.allSettled(writers);
    const ended = a === undefined ? undefined : await a.stop();
    throw new Error(
      `${moment}/${mode}: ${error instanceof Error ? error.stack : error}\n` +
        `--- A exit ${ended?.code}, stderr ---\n${ended?.stderr}\n--- A stdout (tail) ---\n` +
        (ended?.stdout ?? output).split("\n").slice(-25).join("\n"),
    );
  } finally {
    await a?.dispose();
    await b?.dispose();
    proxy.close();
    await receiver.close();
    await schema.drop();
  }
}
