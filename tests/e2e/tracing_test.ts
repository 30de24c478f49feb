/**
 * Traces end to end: the real server, started as the README says with OTEL_DENO=true, exports to
 * an OTLP/HTTP receiver of the test's own, which decodes the protobuf with OpenTelemetry's
 * protocol definitions; a webhook goes to a real receiver that verifies it (issue 42).
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp_receiver.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { Receiver, verify } from "../support/webhook_receiver.ts";

const SCOPES = "customers:read customers:write webhooks:manage";
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
/** Milliseconds two clocks may differ by: the runtime's span times, and performance.now(). */
const SKEW_MS = 2;

function randomHex(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return [...random].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The one span named `name` under `parent` (by span id); fails when there is not exactly one. */
function childOf(spans: ReceivedSpan[], parent: ReceivedSpan, name: string): ReceivedSpan {
  const found = spans.filter((span) => span.parentSpanId === parent.spanId && span.name === name);
  assert.equal(found.length, 1, `one ${name} under ${parent.name}: ${JSON.stringify(found)}`);
  assert.equal(found[0].traceId, parent.traceId, `${name} is in its parent's trace`);
  return found[0];
}

/** The request log lines a server printed, by request id. */
function requestLines(lines: string[]): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line);
    if (entry.msg === "request") found.set(entry.request_id, entry);
  }
  return found;
}

Deno.test("with OTEL_DENO=true a POST, a GET with traceparent and a webhook delivery are traced from request to durable commit", async () => {
  const otlp = new OtlpReceiver();
  const hooks = new Receiver();
  const lines: string[] = [];
  await using server = await startServer({
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "200",
      WEBHOOK_ALLOW_PRIVATE: "1",
    },
    onLine: (line) => lines.push(line),
  });
  try {
    const token = await makeToken({ scope: SCOPES });
    const api = new ApiClient(server.url, token);
    const hook = await api.post("/api/webhooks", {
      json: { url: hooks.url(), types: ["customer.created"] },
    });
    assert.equal(hook.status, 201, hook.text);

    // A token of its own, first used here: its check verifies the signature, GET's finds it cached.
    const writer = await makeToken({ scope: SCOPES, sub: "tracing-writer" });
    const posted = await api.post("/api/customers", { json: newCustomer(), token: writer });
    assert.equal(posted.status, 201, posted.text);
    const id = posted.body.id as string;
    const seq = Number(posted.headers.get("log-seq"));
    const [callerTrace, callerSpan] = [randomHex(16), randomHex(8)];
    const got = await api.get(`/api/customers/${id}`, {
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
      token: writer,
    });
    assert.equal(got.status, 200, got.text);
    const missing = await api.get(`/api/nothing/${id}`);
    assert.equal(missing.status, 404, missing.text);

    const [delivery] = await hooks.waitFor((received) => received.length >= 1);
    const event = verify(delivery, hook.body.secret) as { seq: number; data: { id: string } };
    assert.equal(event.seq, seq);
    assert.equal(event.data.id, id);

    const spans = await otlp.waitFor((all) =>
      ["POST /api/customers", "GET /api/customers/{id}", "webhook.delivery", "log.group_commit"]
        .every((name) => all.some((span) => span.name === name)) &&
      all.some((span) =>
        span.kind === SERVER && span.attributes["url.path"] === `/api/nothing/${id}`
      )
    );
    assert.deepEqual([...otlp.contentTypes], ["application/x-protobuf"]);

    checkPost(spans, posted.headers.get("x-request-id")!, seq, lines);
    const getSpan = spans.find((span) => span.name === "GET /api/customers/{id}")!;
    // The caller's trace goes on: the server span is a child of the caller's span.
    assert.equal(getSpan.traceId, callerTrace);
    assert.equal(getSpan.parentSpanId, callerSpan);
    assert.equal(getSpan.kind, SERVER);
    assert.equal(getSpan.scope, "deno");
    assert.equal(getSpan.service, "customer-api");
    assert.equal(getSpan.attributes["http.route"], "/api/customers/{id}");
    assert.equal(getSpan.attributes["http.request.method"], "GET");
    assert.equal(String(getSpan.attributes["http.response.status_code"]), "200");
    assert.equal(getSpan.attributes["request_id"], got.headers.get("x-request-id"));
    const cached = childOf(spans, getSpan, "auth.token_check");
    assert.equal(cached.attributes["auth.cache_hit"], true, "the POST's check cached the token");
    assert.equal(cached.status, 0);
    const getLine = requestLines(lines).get(got.headers.get("x-request-id")!)!;
    assert.equal(getLine.trace_id, callerTrace);
    assert.equal(getLine.span_id, getSpan.spanId);

    // An unmatched path keeps the runtime's name, the method: its segments are never a name.
    const unmatched = spans.find((span) => span.attributes["url.path"] === `/api/nothing/${id}`)!;
    assert.equal(unmatched.name, "GET");
    assert.equal(unmatched.attributes["http.route"], undefined);

    // The delivery is a client span of its own trace, linked to the commit of its event.
    const deliverySpan = spans.find((span) => span.name === "webhook.delivery")!;
    const commit = spans.find((span) =>
      span.name === "log.group_commit" && span.attributes["log.seq"] === seq
    )!;
    assert.equal(deliverySpan.kind, CLIENT);
    assert.equal(deliverySpan.parentSpanId, "");
    assert.notEqual(deliverySpan.traceId, commit.traceId);
    assert.deepEqual(deliverySpan.links, [{ traceId: commit.traceId, spanId: commit.spanId }]);
    assert.equal(deliverySpan.attributes["http.response.status_code"], 204);
    assert.equal(deliverySpan.attributes["log.seq"], seq);
    assert.equal(deliverySpan.attributes["webhook.event_type"], "customer.created");
    assert.equal(deliverySpan.attributes["webhook.attempt"], 1);
    assert.equal(deliverySpan.attributes["server.address"], "127.0.0.1");
    assert.equal(deliverySpan.status, 0);
    // The receiver can go on with the delivery's trace.
    assert.equal(delivery.traceparent, `00-${deliverySpan.traceId}-${deliverySpan.spanId}-01`);

    // No id and no token in any span name; the token nowhere at all.
    for (const span of spans) {
      for (const secret of [id, hook.body.id, token, writer, writer.split(".")[2]]) {
        assert.ok(!span.name.includes(secret), `span name "${span.name}" holds "${secret}"`);
      }
      const text = JSON.stringify(span);
      for (const signature of [token, writer].map((jwt) => jwt.split(".")[2])) {
        assert.ok(!text.includes(signature), `span ${span.name} holds a token`);
      }
    }
  } finally {
    await hooks.close();
    await otlp.close();
  }
});

/** The POST's server span and its children: token check, group wait, group commit with its steps. */
function checkPost(spans: ReceivedSpan[], requestId: string, seq: number, lines: string[]) {
  const post = spans.find((span) => span.name === "POST /api/customers")!;
  assert.equal(post.kind, SERVER);
  assert.equal(post.parentSpanId, "", "no traceparent: a trace of its own");
  assert.equal(post.attributes["http.route"], "/api/customers");
  assert.equal(post.attributes["http.request.method"], "POST");
  assert.equal(String(post.attributes["http.response.status_code"]), "201");
  assert.equal(post.attributes["request_id"], requestId);
  const check = childOf(spans, post, "auth.token_check");
  assert.equal(check.attributes["auth.cache_hit"], false, "the first use of a token verifies it");
  const wait = childOf(spans, post, "log.group_wait");
  const commit = childOf(spans, post, "log.group_commit");
  assert.equal(commit.attributes["log.backend"], "jsonl");
  assert.equal(commit.attributes["log.seq"], seq);
  assert.ok(Number(commit.attributes["log.group.appends"]) >= 1);
  assert.ok(Number(commit.attributes["log.group.events"]) >= 1);
  assert.notEqual(commit.status, ERROR);
  // The group's write and fdatasync, timed, within its commit.
  const [write, sync] = [commit.attributes["log.write_ms"], commit.attributes["log.fdatasync_ms"]];
  assert.ok(typeof write === "number" && typeof sync === "number" && write > 0 && sync > 0);
  assert.ok(write + sync <= commit.endMs - commit.startMs + 0.01, `${write} + ${sync} ms`);
  assert.deepEqual(spans.filter((span) => span.parentSpanId === commit.spanId), []);
  // In time order: checked, queued, committed, all inside the request. The runtime's spans and
  // the service's timed ones read two clocks: those comparisons allow a little skew.
  assert.ok(wait.endMs <= commit.startMs + 0.001);
  assert.ok(post.startMs <= check.startMs + SKEW_MS && check.endMs <= wait.startMs + SKEW_MS);
  assert.ok(commit.endMs <= post.endMs + SKEW_MS);
  const line = requestLines(lines).get(requestId)!;
  assert.equal(line.trace_id, post.traceId);
  assert.equal(line.span_id, post.spanId);
}

Deno.test("without OTEL_DENO nothing is exported and log lines carry no trace ids", async () => {
  const otlp = new OtlpReceiver();
  const lines: string[] = [];
  try {
    const server = await startServer({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: "100" },
      onLine: (line) => lines.push(line),
    });
    const api = new ApiClient(server.url, await makeToken({ scope: SCOPES }));
    await api.create(newCustomer());
    await server.dispose();
    const entries = [...requestLines(lines).values()];
    assert.equal(entries.length, 1);
    assert.equal(entries[0].trace_id, undefined);
    const config = JSON.parse(lines.find((line) => line.includes('"configuration"'))!);
    assert.equal(config.otel_deno, false);
    assert.deepEqual([...otlp.requests.keys()], []);
  } finally {
    await otlp.close();
  }
});

Deno.test("in development mode with OTEL_DENO=true the banner's token is not exported: deno task start leaves console output out", async () => {
  const otlp = new OtlpReceiver();
  try {
    const server = await startServer({
      env: {
        JWT_SECRET: "",
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_BLRP_SCHEDULE_DELAY: "100",
      },
    });
    const response = await fetch(`${server.url}/healthz`);
    await response.body?.cancel();
    const stopped = await server.stop();
    await server.dispose();
    const token = /eyJ[\w-]+\.[\w-]+\.[\w-]+/.exec(stopped.stderr)?.[0];
    assert.ok(token !== undefined, `the banner printed a token:\n${stopped.stderr}`);
    await otlp.waitFor((spans) => spans.some((span) => span.name === "GET /healthz"));
    const exported = JSON.stringify([otlp.spans, otlp.logBodies]);
    assert.ok(!exported.includes(token.split(".")[2]), "the development token was exported");
  } finally {
    await otlp.close();
  }
});
