/** A module plugs into createHandler with its route rows, OpenAPI part and scopes; app.ts is not edited. */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { createHandler } from "../src/app.ts";
import { createAuthenticator } from "../src/auth/authenticator.ts";
import { SECRET_ALGORITHMS } from "../src/auth/key_sources.ts";
import { TokenCache } from "../src/auth/token_cache.ts";
import { CustomerNotFoundError } from "../src/domain/errors.ts";
import { withLogSeq } from "../src/feed/log_seq.ts";
import { type ApiModule, InvalidModuleError, type Principal } from "../src/http/api_module.ts";
import { JSON_TYPE } from "../src/http/media_types.ts";
import { json, operation, param, withHead } from "../src/openapi/openapi_operation.ts";

const SECRET = new TextEncoder().encode("app-modules-test-secret-0123456789-abcdefghij");
const NOTES_READ = "notes:read";

/** A module the app has never heard of: one route row, its OpenAPI path item and its scope. */
function notesModule(): ApiModule {
  return {
    routes: [{
      pathname: "/api/notes/:id",
      methods: {
        GET: {
          scope: NOTES_READ,
          handler: (_request, context) =>
            Response.json({ id: context.params.id, reader: context.principal.sub }),
        },
      },
    }],
    scopes: { [NOTES_READ]: "allows reading notes" },
    tags: [{ name: "notes", description: "Notes, a module defined in a test." }],
    components: {
      schemas: {
        Note: {
          type: "object",
          required: ["id", "reader"],
          properties: { id: { type: "string" }, reader: { type: "string" } },
        },
      },
    },
    paths: {
      "/api/notes/{id}": {
        parameters: [param("id")],
        ...withHead(operation({
          operationId: "getNote",
          summary: "Get a note",
          description: "Reads one note.",
          tag: "notes",
          scope: NOTES_READ,
          ok: { "200": { description: "The note.", content: json("Note") } },
        })),
      },
    },
  };
}

function token(scope: string): Promise<string> {
  return new SignJWT({ scope }).setProtectedHeader({ alg: "HS256" }).setSubject("ada")
    .setExpirationTime("1h").sign(SECRET);
}

function notesApp(cache?: TokenCache<Principal>) {
  const authenticate = createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS, cache });
  return createHandler({ modules: [notesModule()], authenticate });
}

const get = (path: string, bearer?: string, method = "GET") =>
  new Request(`http://x${path}`, {
    method,
    headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
  });

Deno.test("a module's route is served with its path parameters and the caller", async () => {
  const handler = notesApp();
  const response = await handler(get("/api/notes/n1", await token(NOTES_READ)));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { id: "n1", reader: "ada" });
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  const head = await handler(get("/api/notes/n1", await token(NOTES_READ), "HEAD"));
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  const put = await handler(get("/api/notes/n1", await token(NOTES_READ), "PUT"));
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, HEAD");
  await put.body?.cancel();
});

Deno.test("a module's route is authorised by the app: 401 without a token, 403 without its scope", async () => {
  const handler = notesApp();
  const anonymous = await handler(get("/api/notes/n1"));
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="customers"');
  await anonymous.body?.cancel();
  const other = await handler(get("/api/notes/n1", await token("customers:read customers:write")));
  assert.equal(other.status, 403);
  assert.equal(
    other.headers.get("www-authenticate"),
    `Bearer realm="customers", error="insufficient_scope", scope="${NOTES_READ}"`,
  );
  assert.equal((await other.json()).type, "urn:problem-type:customer-api:insufficient-scope");
  const allowed = await handler(get("/api/notes/n1", await token(`customers:read ${NOTES_READ}`)));
  assert.equal(allowed.status, 200);
  await allowed.body?.cancel();
});

Deno.test("a module's path, scope, tag and schema are in the served /api/openapi.json", async () => {
  const response = await notesApp()(get("/api/openapi.json"));
  assert.equal(response.headers.get("content-type"), JSON_TYPE);
  const document = await response.json();
  const item = document.paths["/api/notes/{id}"];
  assert.deepEqual(item.get.security, [{ bearerAuth: [NOTES_READ] }]);
  assert.equal(item.head.operationId, "headGetNote");
  for (const status of ["200", "401", "403", "429", "500"]) assert.ok(item.get.responses[status]);
  assert.ok(document.components.schemas.Note);
  assert.ok(document.components.schemas.Problem, "the kernel's schemas stay");
  assert.deepEqual(document.tags.map((tag: { name: string }) => tag.name), ["notes", "operations"]);
  assert.match(document.components.securitySchemes.bearerAuth.description, /`notes:read` allows/);
  assert.equal(document.paths["/api/customers"], undefined, "only the modules given are served");
  const docs = await notesApp()(get("/docs"));
  assert.match(await docs.text(), /data-operation="get \/api\/notes\/\{id\}"/);
});

Deno.test("a module's public routes answer without a token, with the headers every answer carries, outside the API description", async () => {
  const authenticate = createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS });
  const page: ApiModule = {
    paths: {},
    scopes: {},
    routes: [],
    publicRoutes: [{
      pathname: "/page",
      methods: {
        GET: () => new Response("<p>hi</p>", { headers: { "content-type": "text/html" } }),
      },
    }],
  };
  const handler = createHandler({ modules: [notesModule(), page], authenticate });
  const response = await handler(get("/page"));
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "<p>hi</p>");
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  assert.ok(response.headers.get("x-request-id"));
  const post = await handler(get("/page", undefined, "POST"));
  assert.equal(post.status, 405);
  await post.body?.cancel();
  const document = await (await handler(get("/api/openapi.json"))).json();
  assert.equal(document.paths["/page"], undefined);
});

Deno.test("a cached token and a synchronous module handler answer without a promise", async () => {
  const handler = notesApp(new TokenCache<Principal>());
  const bearer = await token(NOTES_READ);
  const first = handler(get("/api/notes/n1", bearer));
  assert.ok(first instanceof Promise, "the first use of a token verifies it");
  await (await first).body?.cancel();
  const second = handler(get("/api/notes/n1", bearer));
  assert.ok(second instanceof Response, "the fast path made a promise");
  assert.equal(second.status, 200);
  await second.body?.cancel();
});

Deno.test("a module whose routes and description disagree is refused when the app is built", () => {
  const authenticate = createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS });
  const build = (change: (module: ApiModule) => ApiModule) => () =>
    createHandler({ modules: [change(notesModule())], authenticate });
  const undocumented = (m: ApiModule): ApiModule => ({
    ...m,
    routes: [...m.routes, { pathname: "/api/notes", methods: m.routes[0].methods }],
  });
  assert.throws(build(undocumented), InvalidModuleError);
  assert.throws(build(undocumented), /"GET \/api\/notes" is not documented/);
  const otherScope = (m: ApiModule): ApiModule => ({
    ...m,
    routes: [{
      pathname: "/api/notes/:id",
      methods: { GET: { scope: "notes:write", handler: () => new Response() } },
    }],
  });
  assert.throws(build(otherScope), /requires "notes:write" but is documented with "notes:read"/);
  const unrouted = (m: ApiModule): ApiModule => ({ ...m, routes: [] });
  assert.throws(build(unrouted), /"GET \/api\/notes\/\{id\}" is documented, not routed/);
  const undeclared = (m: ApiModule): ApiModule => ({ ...m, scopes: {} });
  assert.throws(build(undeclared), /the undeclared scope "notes:read"/);
  const twice = () =>
    createHandler({ modules: [notesModule(), { ...notesModule(), tags: [] }], authenticate });
  assert.throws(twice, /"\/api\/notes\/\{id\}" is described twice/);
});

Deno.test("withLogSeq: every answer carries the seq its handler started from, unless it has its own", async () => {
  let seq = 7;
  const notes = notesModule();
  const module = withLogSeq({
    ...notes,
    routes: [{
      pathname: "/api/notes/:id",
      methods: {
        GET: {
          scope: NOTES_READ,
          // The read model moves on while each handler runs: the answer names where it started.
          handler: (_request, context): Response | Promise<Response> => {
            seq++;
            switch (context.params.id) {
              case "respond":
                return context.respond("{}", 200, { "content-type": JSON_TYPE });
              case "plain":
                return Response.json({});
              case "async":
                return Promise.resolve().then(() => Response.json({}));
              case "own":
                return Promise.resolve(new Response(null, { headers: { "log-seq": "99" } }));
              case "throws":
                throw new CustomerNotFoundError("x");
              default:
                return Promise.reject(new CustomerNotFoundError("x"));
            }
          },
        },
      },
    }],
  }, () => seq);
  const authenticate = createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS });
  const handler = createHandler({ modules: [module], authenticate });
  const bearer = await token(NOTES_READ);
  const expected = [["respond", "7"], ["plain", "8"], ["async", "9"], ["own", "99"], [
    "throws",
    "11",
  ], ["rejects", "12"]];
  for (const [id, logSeq] of expected) {
    const response = await handler(get(`/api/notes/${id}`, bearer));
    await response.body?.cancel();
    assert.equal(response.headers.get("log-seq"), logSeq, id);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", id);
  }
});
