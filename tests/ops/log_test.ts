import assert from "node:assert/strict";
import { requestLine } from "../../src/ops/log.ts";

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
