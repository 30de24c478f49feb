import assert from "node:assert/strict";
import { CorsPolicy } from "../../src/http/cors.ts";

const APP = "https://app.example.com";
const ALLOW_HEADERS =
  "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Request-Id";
const EXPOSE_HEADERS =
  "ETag, Location, Link, X-Request-Id, Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy";

function request(method: string, headers: Record<string, string>): Request {
  return new Request("http://x/api/customers", { method, headers });
}

Deno.test("only origins on the list are allowed, compared exactly", () => {
  const cors = new CorsPolicy([APP, "http://localhost:5173"]);
  assert.equal(cors.allows(APP), true);
  assert.equal(cors.allows("http://localhost:5173"), true);
  for (
    const origin of [
      "http://app.example.com",
      "https://app.example.com:8443",
      "https://app.example.com/",
      "https://APP.example.com",
      "https://evil.app.example.com",
      "https://app.example.com.evil.example",
      "http://localhost:5174",
      "null",
      "*",
      "",
    ]
  ) {
    assert.equal(cors.allows(origin), false, origin);
  }
  assert.equal(cors.allows(null), false);
});

Deno.test("a preflight is OPTIONS with both Origin and Access-Control-Request-Method", () => {
  const cors = new CorsPolicy([APP]);
  const both = { origin: APP, "access-control-request-method": "PATCH" };
  assert.equal(cors.isPreflight(request("OPTIONS", both)), true);
  assert.equal(cors.isPreflight(request("OPTIONS", { origin: APP })), false);
  assert.equal(
    cors.isPreflight(request("OPTIONS", { "access-control-request-method": "PATCH" })),
    false,
  );
  assert.equal(cors.isPreflight(request("GET", both)), false);
  assert.equal(
    cors.isPreflight(request("OPTIONS", { ...both, origin: "https://evil.example" })),
    true,
    "an origin off the list still makes a preflight (it is refused, not routed as OPTIONS)",
  );
});

Deno.test("an allowed preflight is a 204 listing the route's methods and the API's headers", async () => {
  const res = new CorsPolicy([APP]).preflight(APP, ["GET", "PUT", "PATCH", "DELETE", "HEAD"]);
  assert.equal(res.status, 204);
  assert.equal(await res.text(), "");
  assert.deepEqual(Object.fromEntries(res.headers), {
    "access-control-allow-origin": APP,
    "access-control-allow-methods": "GET, PUT, PATCH, DELETE, HEAD",
    "access-control-allow-headers": ALLOW_HEADERS,
    "access-control-max-age": "600",
    "vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
  });
});

Deno.test("an actual response to an allowed origin echoes it, exposes the API headers and varies on Origin", () => {
  const headers = new Headers({ "content-type": "application/json", vary: "Accept-Encoding" });
  new CorsPolicy([APP]).decorate(APP, headers);
  assert.deepEqual(Object.fromEntries(headers), {
    "access-control-allow-origin": APP,
    "access-control-expose-headers": EXPOSE_HEADERS,
    "content-type": "application/json",
    "vary": "Accept-Encoding, Origin",
  });
});

Deno.test("an actual response to a refused or absent origin only gains Vary: Origin", () => {
  for (const origin of ["https://evil.example", null]) {
    const headers = new Headers({ "content-type": "application/json" });
    new CorsPolicy([APP]).decorate(origin, headers);
    assert.deepEqual(Object.fromEntries(headers), {
      "content-type": "application/json",
      "vary": "Origin",
    });
  }
});

Deno.test("no response ever allows credentials or any origin with *", () => {
  const cors = new CorsPolicy([APP]);
  const decorated = new Headers();
  cors.decorate(APP, decorated);
  for (const headers of [decorated, cors.preflight(APP, ["GET"]).headers]) {
    assert.equal(headers.get("access-control-allow-credentials"), null);
    assert.notEqual(headers.get("access-control-allow-origin"), "*");
  }
});
