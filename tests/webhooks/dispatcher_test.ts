import assert from "node:assert/strict";
import { MemoryEventStore, MemoryLog } from "../../src/store/memory/memory_event_store.ts";
import { MemoryWebhookStore } from "../../src/store/memory/memory_webhook_store.ts";
import { Deliverer } from "../../src/webhooks/delivery.ts";
import { DestinationPolicy } from "../../src/webhooks/destination.ts";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher.ts";
import { created, deleted, ulid, updated } from "../support/events.ts";
import { Receiver, verify } from "../support/webhook_receiver.ts";
import { endpoint } from "../store/webhook_store_contract.ts";

const SECRET = "whsec_" + btoa("k".repeat(32));

/** A dispatcher over a memory log and webhook store, delivering to private addresses. */
function memoryDispatcher() {
  const events = new MemoryEventStore(new MemoryLog());
  const webhooks = new MemoryWebhookStore();
  const dispatcher = new WebhookDispatcher({
    events,
    tail: events,
    webhooks,
    deliverer: new Deliverer(new DestinationPolicy(true), 1000),
    retryScheduleMs: [50],
    disable: () => Promise.resolve(),
    log: { warn: () => {}, error: () => {} },
  });
  return { events, webhooks, dispatcher };
}

Deno.test("an endpoint gets only its types, in seq order, and its checkpoint passes the others", async () => {
  const receiver = new Receiver();
  const { events, webhooks, dispatcher } = memoryDispatcher();
  try {
    await webhooks.put(endpoint(1, {
      url: receiver.url(),
      types: ["customer.updated", "customer.deleted"],
      secrets: [{ secret: SECRET, expires_at: null }],
    }));
    await events.replay(() => {});
    dispatcher.start();
    await events.append([created(1), created(2)]);
    await events.append([updated(1, 2), deleted(2, 2), created(3), updated(3, 2)]);
    const got = await receiver.waitFor((r) => r.length >= 3);
    assert.deepEqual(got.map((d) => [d.event.seq, d.event.type]), [
      [3, "customer.updated"],
      [4, "customer.deleted"],
      [6, "customer.updated"],
    ]);
    for (const delivery of got) verify(delivery, SECRET);
    for (let i = 0; i < 100 && webhooks.get(ulid(1))!.last_seq < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(webhooks.get(ulid(1))!.last_seq, 6);
    assert.equal(dispatcher.backlog(ulid(1)), 0);
  } finally {
    await dispatcher.stop();
    await events.close();
    await receiver.close();
  }
});

Deno.test("a removed endpoint's kept connection is closed once its delivery stops", async () => {
  // A bare HTTP/1.1 receiver that answers 204 and keeps the connection, to see it closed.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let requests = 0;
  let closed: () => void;
  const closedNow = new Promise<void>((resolve) => closed = resolve);
  const serving = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(65536);
      while (true) {
        const n = await conn.read(buffer).catch(() => null);
        if (n === null) break;
        if (!new TextDecoder().decode(buffer.subarray(0, n)).startsWith("POST")) continue;
        requests++;
        await conn.write(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n"));
      }
      conn.close();
      closed!();
    }
  })();
  const { events, webhooks, dispatcher } = memoryDispatcher();
  try {
    const { port } = listener.addr as Deno.NetAddr;
    await webhooks.put(endpoint(1, {
      url: `http://127.0.0.1:${port}/hook`,
      secrets: [{ secret: SECRET, expires_at: null }],
    }));
    await events.replay(() => {});
    dispatcher.start();
    await events.append([created(1)]);
    for (let i = 0; i < 100 && webhooks.get(ulid(1))!.last_seq < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(requests, 1);
    await webhooks.remove(ulid(1));
    dispatcher.sync(ulid(1));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<string>((resolve) =>
      timer = setTimeout(() => resolve("open"), 2000)
    );
    const outcome = await Promise.race([closedNow.then(() => "closed"), timeout]);
    clearTimeout(timer);
    assert.equal(outcome, "closed");
  } finally {
    await dispatcher.stop();
    await events.close();
    listener.close();
    await serving.catch(() => {});
  }
});
