/**
 * Traces on PostgreSQL (issue 42): two real replicas on one schema with OTEL_DENO=true export to
 * the test's OTLP receiver; a create shows its append call's time, a Min-Log-Seq read its wait.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp_receiver.ts";
import { createTestSchema } from "../support/postgres.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

function only(spans: ReceivedSpan[], test: (span: ReceivedSpan) => boolean, what: string) {
  const found = spans.filter(test);
  assert.equal(found.length, 1, `one ${what}: ${JSON.stringify(found)}`);
  return found[0];
}

Deno.test("on PostgreSQL a create's trace shows the group's append call, and a Min-Log-Seq read its wait for the replica", async () => {
  const schema = await createTestSchema();
  const otlp = new OtlpReceiver();
  const servers: TestServer[] = [];
  try {
    const env = {
      DATABASE_URL: schema.url,
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "200",
    };
    for (let i = 0; i < 2; i++) servers.push(await startServer({ env }));
    const token = await makeToken();
    const [a, b] = servers.map((server) => new ApiClient(server.url, token));

    const posted = await a.post("/api/customers", { json: newCustomer() });
    assert.equal(posted.status, 201, posted.text);
    const seq = Number(posted.headers.get("log-seq"));
    // B is asked for a state one write ahead of the log: it waits until A's next create arrives.
    const waiting = b.get(`/api/customers/${posted.body.id}`, {
      headers: { "min-log-seq": String(seq + 1) },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await a.create(newCustomer());
    const read = await waiting;
    assert.equal(read.status, 200, read.text);

    const spans = await otlp.waitFor((all) =>
      all.some((span) => span.name === "replica.min_log_seq_wait") &&
      all.filter((span) => span.name === "log.group_commit").length >= 2
    );
    const post = only(
      spans,
      (span) => span.attributes["request_id"] === posted.headers.get("x-request-id"),
      "server span of the create",
    );
    assert.equal(post.name, "POST /api/customers");
    const commit = only(
      spans,
      (span) => span.name === "log.group_commit" && span.parentSpanId === post.spanId,
      "group commit under the create",
    );
    assert.equal(commit.attributes["log.backend"], "postgres");
    assert.equal(commit.attributes["log.seq"], seq);
    assert.ok(Number(commit.attributes["log.group.appends"]) >= 1);
    // The append call, timed, within the commit (it is most of it).
    const call = commit.attributes["log.append_group_ms"];
    assert.ok(typeof call === "number" && call > 0, `log.append_group_ms ${call}`);
    assert.ok(call <= commit.endMs - commit.startMs + 0.01);
    assert.ok(
      spans.some((span) => span.name === "log.group_wait" && span.parentSpanId === post.spanId),
    );

    const get = only(
      spans,
      (span) => span.attributes["request_id"] === read.headers.get("x-request-id"),
      "server span of the read",
    );
    assert.equal(get.name, "GET /api/customers/{id}");
    const wait = only(
      spans,
      (span) => span.name === "replica.min_log_seq_wait" && span.parentSpanId === get.spanId,
      "Min-Log-Seq wait under the read",
    );
    assert.equal(wait.attributes["log_seq.wanted"], seq + 1);
    assert.equal(wait.attributes["log_seq.applied"], seq);
    assert.equal(wait.attributes["replica.caught_up"], true);
    assert.ok(wait.endMs - wait.startMs >= 250, `waited ${wait.endMs - wait.startMs} ms`);
    for (const span of spans) assert.ok(!span.name.includes(posted.body.id), span.name);
  } finally {
    for (const server of servers) await server.dispose();
    await otlp.close();
    await schema.drop();
  }
});
