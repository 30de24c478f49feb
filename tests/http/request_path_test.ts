import assert from "node:assert/strict";
import { pathnameOf } from "../../src/http/request_path.ts";

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
