import assert from "node:assert/strict";
import { Router } from "../../src/http/router.ts";

const router = new Router<string>([
  { pathname: "/api/customers", methods: { GET: "list", POST: "create" } },
  { pathname: "/api/customers/:id", methods: { GET: "read", PUT: "replace", DELETE: "remove" } },
  { pathname: "/api/commands", methods: { POST: "command" } },
  { pathname: "/api/explicit", methods: { GET: "get", HEAD: "head" } },
]);

Deno.test("a matching method and path finds the handler, its params and the route pattern", () => {
  assert.deepEqual(router.match("GET", "/api/customers/01JDQ8Z5K3M4N5P6Q7R8S9T0VW"), {
    kind: "found",
    handler: "read",
    params: { id: "01JDQ8Z5K3M4N5P6Q7R8S9T0VW" },
    route: "/api/customers/:id",
  });
});

Deno.test("a path without parameters is found with empty params", () => {
  assert.deepEqual(router.match("POST", "/api/customers"), {
    kind: "found",
    handler: "create",
    params: {},
    route: "/api/customers",
  });
});

Deno.test("an unknown path is not_found whatever the method", () => {
  assert.deepEqual(router.match("GET", "/api/nothing"), { kind: "not_found" });
  assert.deepEqual(router.match("DELETE", "/"), { kind: "not_found" });
});

Deno.test("a path with an extra segment is not_found rather than matching a shorter route", () => {
  assert.deepEqual(router.match("GET", "/api/customers/a/b"), { kind: "not_found" });
});

Deno.test("a known path with another method is method_not_allowed with its allow list", () => {
  assert.deepEqual(router.match("PATCH", "/api/customers"), {
    kind: "method_not_allowed",
    allow: ["GET", "POST", "HEAD"],
    route: "/api/customers",
  });
});

Deno.test("the allow list adds HEAD after the route's methods when GET exists", () => {
  assert.deepEqual(router.match("POST", "/api/customers/x"), {
    kind: "method_not_allowed",
    allow: ["GET", "PUT", "DELETE", "HEAD"],
    route: "/api/customers/:id",
  });
});

Deno.test("the allow list has no HEAD when the route has no GET", () => {
  assert.deepEqual(router.match("GET", "/api/commands"), {
    kind: "method_not_allowed",
    allow: ["POST"],
    route: "/api/commands",
  });
});

Deno.test("the allow list names HEAD once when the route declares it explicitly", () => {
  assert.deepEqual(router.match("PUT", "/api/explicit"), {
    kind: "method_not_allowed",
    allow: ["GET", "HEAD"],
    route: "/api/explicit",
  });
});

Deno.test("HEAD falls back to the GET handler", () => {
  assert.deepEqual(router.match("HEAD", "/api/customers"), {
    kind: "found",
    handler: "list",
    params: {},
    route: "/api/customers",
  });
});

Deno.test("an explicit HEAD handler wins over the GET fallback", () => {
  const found = router.match("HEAD", "/api/explicit");
  assert.equal(found.kind, "found");
  assert.equal(found.kind === "found" ? found.handler : undefined, "head");
});

Deno.test("HEAD on a route without GET is method_not_allowed", () => {
  assert.deepEqual(router.match("HEAD", "/api/commands"), {
    kind: "method_not_allowed",
    allow: ["POST"],
    route: "/api/commands",
  });
});
