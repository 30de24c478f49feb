import assert from "node:assert/strict";
import { createLogger, requestLine } from "../../src/ops/log.ts";

Deno.test("a request log line is one JSON object with exactly the access-log fields", () => {
  const line = requestLine("req-1.a_B", "GET", "/api/customers/:id", 200, 0.125);
  const parsed = JSON.parse(line);
  assert.deepEqual(Object.keys(parsed), [
    "time",
    "level",
    "msg",
    "request_id",
    "method",
    "route",
    "status",
    "duration_ms",
  ]);
  assert.deepEqual(
    { ...parsed, time: undefined },
    {
      time: undefined,
      level: "info",
      msg: "request",
      request_id: "req-1.a_B",
      method: "GET",
      route: "/api/customers/:id",
      status: 200,
      duration_ms: 0.125,
    },
  );
  assert.match(parsed.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

Deno.test("a line logged while a request is traced carries its trace_id and span_id; others none", () => {
  const lines: string[] = [];
  const active: { ids?: { traceId: string; spanId: string } } = {};
  const log = createLogger("info", (line) => lines.push(line), "json", () => active.ids);
  log.info("outside");
  const current = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };
  active.ids = current;
  log.error("unexpected error", { request_id: "r-1" });
  const [outside, inside] = lines.map((line) => JSON.parse(line));
  assert.equal(outside.trace_id, undefined);
  assert.deepEqual(
    [inside.request_id, inside.trace_id, inside.span_id],
    ["r-1", current.traceId, current.spanId],
  );
  const text: string[] = [];
  createLogger("info", (line) => text.push(line), "text", () => active.ids).warn("slow");
  assert.match(
    text[0],
    / WARN {2}slow trace_id=0af7651916cd43dd8448eb211c80319c span_id=b7ad6b7169203331$/,
  );
});
