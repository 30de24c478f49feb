import assert from "node:assert/strict";
import { Deliverer } from "../../src/webhooks/delivery.ts";
import { DestinationPolicy } from "../../src/webhooks/destination.ts";
import { endpoint } from "../store/webhook_store_contract.ts";
import { RecordedSpans } from "../support/recorded_spans.ts";

const MESSAGE = { id: "evt_7", type: "customer.created", seq: 7, body: '{"seq":7}' };

Deno.test("each delivery attempt is a client span linked to its event's commit, its traceparent sent along", async () => {
  const answers = [204, 500];
  const traceparents: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    traceparents.push(request.headers.get("traceparent"));
    return new Response(null, { status: answers.shift() });
  });
  const recorded = new RecordedSpans();
  const url = `http://127.0.0.1:${server.addr.port}/hook`;
  const deliverer = new Deliverer(new DestinationPolicy(true), 1000, Date.now, recorded.linked);
  try {
    const hook = endpoint(1, { url });
    assert.equal((await deliverer.attempt(hook, MESSAGE)).ok, true);
    assert.equal((await deliverer.attempt(hook, MESSAGE, undefined, 2)).ok, false);
    const [first, second] = recorded.named("webhook.delivery");
    assert.deepEqual(first.attributes, {
      "http.request.method": "POST",
      "webhook.endpoint_id": hook.id,
      "webhook.message_id": "evt_7",
      "webhook.event_type": "customer.created",
      "webhook.attempt": 1,
      "log.seq": 7,
      "server.address": "127.0.0.1",
      "server.port": server.addr.port,
      "http.response.status_code": 204,
    });
    assert.equal(first.seq, 7, "linked to the commit of seq 7");
    assert.equal(first.failed, undefined);
    assert.equal(second.attributes["webhook.attempt"], 2);
    assert.equal(second.failed, "500");
    assert.deepEqual(traceparents, [first.traceparent, second.traceparent]);
    assert.ok(first.ended && second.ended);
  } finally {
    deliverer.close();
    await server.shutdown();
  }
});

Deno.test("an attempt refused before connecting, or with no tracing, sends no traceparent", async () => {
  const recorded = new RecordedSpans();
  const strict = new Deliverer(new DestinationPolicy(false), 1000, Date.now, recorded.linked);
  const refused = await strict.attempt(endpoint(1, { url: "https://127.0.0.1:9/hook" }), MESSAGE);
  assert.equal(refused.ok, false);
  assert.deepEqual(recorded.spans.map((span) => [span.failed, span.ended]), [
    ["destination_refused", true],
  ]);
  const traceparents: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    traceparents.push(request.headers.get("traceparent"));
    return new Response(null, { status: 204 });
  });
  const plain = new Deliverer(new DestinationPolicy(true), 1000);
  try {
    const url = `http://127.0.0.1:${server.addr.port}/hook`;
    assert.equal((await plain.attempt(endpoint(2, { url }), MESSAGE)).ok, true);
    assert.deepEqual(traceparents, [null]);
  } finally {
    plain.close();
    await server.shutdown();
  }
});
