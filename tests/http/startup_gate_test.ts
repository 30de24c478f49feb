import assert from "node:assert/strict";
import { startupGate } from "../../src/http/startup_gate.ts";

const gate = startupGate();

Deno.test("while starting, GET /healthz answers 200 with the usual headers", async () => {
  const response = gate(new Request("http://x/healthz", { headers: { "x-request-id": "abc-1" } }));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok" });
  assert.equal(response.headers.get("x-request-id"), "abc-1");
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
});

Deno.test("while starting, /readyz and every other route answer 503 starting with Retry-After", async () => {
  for (
    const [method, path] of [
      ["GET", "/readyz"],
      ["GET", "/api/customers"],
      ["POST", "/api/customers"],
      ["DELETE", "/nowhere"],
      ["POST", "/healthz"],
    ]
  ) {
    const response = gate(new Request(`http://x${path}`, { method }));
    assert.equal(response.status, 503, `${method} ${path}`);
    assert.equal(response.headers.get("content-type"), "application/problem+json");
    assert.equal(response.headers.get("retry-after"), "1");
    const problem = await response.json();
    assert.equal(problem.type, "urn:problem-type:customer-api:starting");
    assert.equal(problem.status, 503);
    assert.equal(problem.request_id, response.headers.get("x-request-id"));
  }
});

Deno.test("while starting, the API's 503 carries Log-Seq (what is applied so far); other paths do not", () => {
  let applied = 0;
  const withSeq = startupGate({ paths: ["/api/customers", "/api/events"], seq: () => applied });
  const first = withSeq(new Request("http://x/api/customers"));
  assert.equal(first.headers.get("log-seq"), "0");
  applied = 42;
  for (const path of ["/api/customers/01ABC/history", "/api/events?after=3"]) {
    assert.equal(withSeq(new Request(`http://x${path}`)).headers.get("log-seq"), "42", path);
  }
  for (const path of ["/readyz", "/healthz", "/api/webhooks", "/api/customersx"]) {
    assert.equal(withSeq(new Request(`http://x${path}`)).headers.get("log-seq"), null, path);
  }
});
