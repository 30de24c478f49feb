import assert from "node:assert/strict";
import { LogBuffer } from "../../src/ops/log_buffer.ts";
import { requestLine } from "../../src/ops/log.ts";

function collecting(): { buffer: LogBuffer; written: () => string } {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  // The buffer is reused after a write: the writer must copy (as a syscall does).
  const buffer = new LogBuffer((bytes) => chunks.push(decoder.decode(bytes)), 60_000, 1024);
  return { buffer, written: () => chunks.join("") };
}

Deno.test("a buffered request line is byte for byte the line requestLine builds", () => {
  const { buffer, written } = collecting();
  const durations = [0, 0.001, 0.01, 0.1, 0.125, 0.5, 1, 1.05, 12.345, 100, 2500.007, 123456.789];
  const expected: string[] = [];
  for (const [i, ms] of durations.entries()) {
    const status = [200, 304, 404, 500][i % 4];
    const id = `req-${i}.a_B-3a893917-3d58-4ce6-9d03-7d9c44f11d6c`;
    buffer.request(id, "GET", "/api/customers/:id", status, ms);
    expected.push(requestLine(id, "GET", "/api/customers/:id", status, ms));
  }
  buffer.flush();
  const lines = written().split("\n");
  assert.equal(lines.pop(), "", "every line ends with a newline");
  assert.equal(lines.length, expected.length);
  for (const [i, line] of lines.entries()) {
    // The time may differ by a millisecond between the two; everything after it may not.
    assert.equal(line.slice(35), expected[i].slice(35));
    assert.deepEqual({ ...JSON.parse(line), time: 0 }, { ...JSON.parse(expected[i]), time: 0 });
  }
});

Deno.test("text and request lines come out in the order they were added, across full buffers", () => {
  const { buffer, written } = collecting();
  const added: string[] = [];
  for (let i = 0; i < 40; i++) {
    if (i % 3 === 0) {
      const line = JSON.stringify({ msg: `lifecycle ${i}`, note: "Grüße, ünïcödé" });
      buffer.text(line);
      added.push(line);
    } else {
      buffer.request(`id-${i}`, "POST", "/api/customers", 201, i);
      added.push(`id-${i}`);
    }
  }
  buffer.text("x".repeat(5000)); // larger than the buffer: written on its own, still in order
  added.push("x".repeat(5000));
  buffer.flush();
  const lines = written().trimEnd().split("\n");
  assert.equal(lines.length, added.length);
  for (const [i, line] of lines.entries()) {
    if (added[i].startsWith("id-")) assert.equal(JSON.parse(line).request_id, added[i]);
    else assert.equal(line, added[i]);
  }
});

Deno.test("nothing is written before a flush or the timer, and a flush writes everything once", async () => {
  const chunks: Uint8Array[] = [];
  const buffer = new LogBuffer((bytes) => chunks.push(bytes.slice()), 20);
  buffer.request("a", "GET", "/healthz", 200, 0.2);
  buffer.request("b", "GET", "/healthz", 200, 0.3);
  assert.equal(chunks.length, 0, "batched, not written per line");
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(chunks.length, 1, "the timer wrote both lines in one call");
  buffer.flush();
  assert.equal(chunks.length, 1, "nothing left to write");
});

Deno.test("a request line longer than the buffer is still written whole, in order", () => {
  const { buffer, written } = collecting();
  const method = "X".repeat(3000);
  buffer.request("before", "GET", "/healthz", 200, 1);
  buffer.request("long", method, "unmatched", 405, 2.5);
  buffer.request("after", "GET", "/healthz", 200, 3);
  buffer.flush();
  const lines = written().trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.request_id), ["before", "long", "after"]);
  assert.equal(lines[1].method, method);
  assert.equal(lines[1].duration_ms, 2.5);
});

Deno.test("a request line's time is its millisecond's, within a second and across seconds", () => {
  const { buffer, written } = collecting();
  const base = Date.parse("2026-11-26T12:34:56.000Z");
  const times = [0, 0, 7, 58, 999, 1000, 1001, 1100, 61_234, 61_234, 3_600_000, 3_600_009];
  const now = Date.now;
  try {
    for (const offset of times) {
      Date.now = () => base + offset;
      buffer.request("r", "GET", "/healthz", 200, 1);
    }
  } finally {
    Date.now = now;
  }
  buffer.flush();
  const stamps = written().trimEnd().split("\n").map((line) => JSON.parse(line).time);
  assert.deepEqual(stamps, times.map((offset) => new Date(base + offset).toISOString()));
});

Deno.test("a traced request's line ends with its trace_id and span_id, byte for byte as requestLine's", () => {
  const { buffer, written } = collecting();
  const trace = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };
  buffer.request("req-1", "POST", "/api/customers", 201, 1.5, trace);
  // A method it does not keep encoded is written field by field: the trace still follows.
  buffer.request("req-2", "PROPFIND", "unmatched", 405, 0.25, trace);
  buffer.request("req-3", "GET", "/healthz", 200, 0.5);
  buffer.flush();
  const lines = written().trimEnd().split("\n");
  const expected = [
    requestLine("req-1", "POST", "/api/customers", 201, 1.5, trace),
    requestLine("req-2", "PROPFIND", "unmatched", 405, 0.25, trace),
    requestLine("req-3", "GET", "/healthz", 200, 0.5),
  ];
  for (const [i, line] of lines.entries()) assert.equal(line.slice(35), expected[i].slice(35));
  assert.deepEqual(
    [JSON.parse(lines[0]).trace_id, JSON.parse(lines[0]).span_id],
    [trace.traceId, trace.spanId],
  );
  assert.equal(JSON.parse(lines[2]).trace_id, undefined);
});
