/** The event stream's timing and token rules, in process with short intervals and a fake clock. */
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { createHandler } from "../../src/app.ts";
import { createAuthenticator } from "../../src/auth/authenticator.ts";
import { SECRET_ALGORITHMS } from "../../src/auth/key_sources.ts";
import { customerModule } from "../../src/customers/customer_routes.ts";
import { CustomerService } from "../../src/customers/customer_service.ts";
import { feedModule } from "../../src/feed/feed_routes.ts";
import { acceptingStreamTokens, StreamTokens } from "../../src/feed/stream_tokens.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { MemoryEventStore } from "../../src/store/memory/memory_event_store.ts";

const SECRET = new TextEncoder().encode("event-stream-test-secret-0123456789-abcdef");

/** A handler over a memory store with the feed module; `now` drives the stream tokens' clock. */
async function setUp(heartbeatMs: number, clock: { now: number }) {
  const store = new MemoryEventStore();
  const service = new CustomerService({
    store,
    projection: new CustomerProjection(),
    clock: Date.now,
    newId: monotonicFactory(),
  });
  await service.snapshots.replay();
  const tokens = new StreamTokens(SECRET, 1_000, () => clock.now);
  const feed = feedModule({
    store,
    onCommit: (listener) => service.addCommitListener(listener),
    isLive: (id) => service.snapshots.isLive(id),
    tokens,
    retentionMs: 86_400_000,
    maxStreams: 10,
    heartbeatMs,
  });
  const handler = createHandler({
    modules: [customerModule({ service, maxBodyBytes: 4096 }), feed.module],
    authenticate: acceptingStreamTokens(
      tokens,
      createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS }),
    ),
  });
  return { handler, feed, tokens, store, service };
}

const streamRequest = (token: string, query = "") =>
  new Request(`http://x/api/events?access_token=${token}${query}`, {
    headers: { accept: "text/event-stream" },
  });

/** The ids of the event frames a stream sends until `count` have come. */
async function eventIds(body: ReadableStream<Uint8Array>, count: number): Promise<string[]> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let ids: string[] = [];
  while (ids.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    ids = [...text.matchAll(/^id: (\d+)\nevent: customer/gm)].map((match) => match[1]);
  }
  await reader.cancel();
  return ids;
}

Deno.test("an idle stream sends a heartbeat comment every heartbeat interval", async () => {
  const { handler, feed, tokens } = await setUp(50, { now: Date.now() });
  const response = await handler(streamRequest(tokens.mint("alice").token));
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const started = performance.now();
  const { value } = await reader.read();
  assert.equal(value, ": heartbeat\n\n");
  assert.ok(performance.now() - started < 2_000);
  await reader.cancel();
  feed.stop();
});

Deno.test("a consumer that stops reading is closed once its buffer stays full, freeing its slot", async () => {
  const { handler, feed, tokens } = await setUp(10, { now: Date.now() });
  const response = await handler(streamRequest(tokens.mint("alice").token));
  assert.equal(feed.streams.size, 1);
  const deadline = Date.now() + 20_000;
  while (feed.streams.size > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(feed.streams.size, 0, "the stalled stream was closed");
  await response.body!.cancel();
  feed.stop();
});

Deno.test("a stream token is refused once its ttl has passed, and is never valid beyond 60 s", async () => {
  const clock = { now: 1_000_000 };
  const { handler, feed, tokens } = await setUp(1_000, clock);
  const { token, expiresAt } = tokens.mint("alice");
  assert.equal(expiresAt, clock.now + 1_000);
  const fresh = await handler(streamRequest(token));
  assert.equal(fresh.status, 200);
  await fresh.body!.cancel();
  clock.now += 1_001;
  const late = await handler(streamRequest(token));
  assert.equal(late.status, 401);
  assert.match(await late.text(), /expired/);
  assert.ok(new StreamTokens(SECRET, 3_600_000).mint("x").expiresAt <= Date.now() + 60_000);
  feed.stop();
});

Deno.test("replicas sharing the secret accept each other's stream tokens; another secret does not", () => {
  const token = new StreamTokens(SECRET).mint("alice").token;
  assert.equal(new StreamTokens(SECRET).verify(token).sub, "alice");
  const other = new StreamTokens(
    new TextEncoder().encode("another-secret-0123456789-abcdefghijkl"),
  );
  assert.throws(() => other.verify(token), /signature/);
});

Deno.test("streams at the head with different filters each get exactly the events theirs select", async () => {
  const { handler, feed, tokens, service } = await setUp(60_000, { now: Date.now() });
  const context = { actor: "alice", requestId: "r" };
  const { customer: ada } = await service.create(
    { name: "Ada", email: "ada@example.com" },
    context,
  );
  const token = tokens.mint("alice").token;
  const open = async (query: string) => (await handler(streamRequest(token, query))).body!;
  const all = [await open(""), await open("")];
  const deletes = await open("&type=customer.deleted");
  const ada1 = await open(`&customer_id=${ada.id}`);
  // Caught up on seq 1, they wait at the head; the next commits reach them through one reader.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const { customer: bob } = await service.create(
    { name: "Bob", email: "bob@example.com" },
    context,
  );
  await service.delete(ada.id, undefined, context);
  await service.delete(bob.id, undefined, context);
  for (const body of all) assert.deepEqual(await eventIds(body, 4), ["1", "2", "3", "4"]);
  assert.deepEqual(await eventIds(deletes, 2), ["3", "4"]);
  assert.deepEqual(await eventIds(ada1, 2), ["1", "3"]);
  feed.stop();
});
