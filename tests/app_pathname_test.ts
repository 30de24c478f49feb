import assert from "node:assert/strict";
import { pathnameOf } from "../src/http/request_path.ts";
import { requestLine } from "../src/ops/log.ts";

Deno.test("pathnameOf answers as the URL parser does, plain paths and odd ones alike", () => {
  const paths = [
    "/",
    "/api/customers",
    "/api/customers/01JDQ8Z5K3M4N5P6Q7R8S9T0VW",
    "/api/customers/?limit=5",
    "/api/customers?q=a%20b&limit=1",
    "/api/customers/../customers",
    "/api/./customers",
    "/api/%63ustomers",
    "/a//b",
    "/api/customers/a b",
    '/api/customers/"x"',
    "/healthz?",
    "/docs#top",
  ];
  for (const path of paths) {
    const url = `http://127.0.0.1:8000${path}`;
    assert.equal(pathnameOf(url), new URL(url).pathname, path);
  }
});

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
