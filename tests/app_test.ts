import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { type AppDeps, createHandler } from "../src/app.ts";
import { type Authenticate, createAuthenticator } from "../src/auth/authenticator.ts";
import { SECRET_ALGORITHMS } from "../src/auth/key_sources.ts";
import { CustomerProjection } from "../src/read_model/projection.ts";
import { CustomerService } from "../src/customers/customer_service.ts";
import { customerModule } from "../src/customers/customer_routes.ts";
import { JsonlEventStore } from "../src/store/jsonl/jsonl_store.ts";

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);
const SECRET = new TextEncoder().encode("app-test-secret-0123456789-abcdefghijklmnopq");
const MAX_BODY = 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ADA = { name: "Ada Lovelace", email: "ada@example.com" };

/** ULIDs 01JDQ8Z5K3000…001, …002, …: valid, ascending and predictable. */
function idAt(n: number): string {
  return `01JDQ8Z5K3${String(n).padStart(16, "0")}`;
}

function token(scope: string, sub = "alice"): Promise<string> {
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setExpirationTime("1h")
    .sign(SECRET);
}

interface App {
  handler: (request: Request) => Response | Promise<Response>;
  /** Sends a request with a read+write token unless headers say otherwise. */
  send(method: string, path: string, init?: { body?: unknown; headers?: HeadersInit }): Promise<
    Response
  >;
  errors: { error: unknown; requestId: string }[];
}

/** Runs a test against a handler over a real service and JSONL store in a temp dir. */
function appTest(
  name: string,
  body: (app: App) => Promise<void>,
  override: Partial<AppDeps> & { maxBodyBytes?: number } = {},
): void {
  Deno.test(name, async () => {
    const dir = await Deno.makeTempDir({ prefix: "customer-app-test-" });
    const store = await JsonlEventStore.open(dir);
    try {
      let next = 1;
      const service = new CustomerService({
        store,
        projection: new CustomerProjection(),
        clock: () => T0,
        newId: () => idAt(next++),
      });
      await service.snapshots.replay();
      const errors: App["errors"] = [];
      const { maxBodyBytes, ...deps } = override;
      const handler = createHandler({
        modules: [customerModule({ service, maxBodyBytes: maxBodyBytes ?? MAX_BODY })],
        authenticate: createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS }),
        onError: (error, requestId) => errors.push({ error, requestId }),
        ...deps,
      });
      const bearer = `Bearer ${await token("customers:read customers:write")}`;
      const send: App["send"] = (method, path, init = {}) => {
        const headers = new Headers({ authorization: bearer });
        if (init.body !== undefined) headers.set("content-type", "application/json");
        for (const [key, value] of new Headers(init.headers)) headers.set(key, value);
        const payload: BodyInit | undefined = init.body === undefined
          ? undefined
          : typeof init.body === "string"
          ? init.body
          : init.body instanceof Uint8Array
          ? new Uint8Array(init.body)
          : JSON.stringify(init.body);
        // The handler answers synchronously when it can; the tests always await a promise.
        return Promise.resolve(
          handler(new Request(`http://x${path}`, { method, headers, body: payload })),
        );
      };
      await body({ handler, send, errors });
    } finally {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

function assertCommonHeaders(response: Response): void {
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  assert.ok(response.headers.get("x-request-id"), "X-Request-Id is missing");
}

async function problemOf(response: Response) {
  assert.equal(response.headers.get("content-type"), "application/problem+json");
  return await response.json();
}

appTest("a sane client X-Request-Id is echoed, on success and on error", async ({ send }) => {
  const ok = await send("GET", "/api/customers", { headers: { "x-request-id": "abc.DEF_1-2" } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("x-request-id"), "abc.DEF_1-2");
  await ok.body?.cancel();
  const id128 = "r".repeat(128);
  const missing = await send("GET", "/nowhere", { headers: { "x-request-id": id128 } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("x-request-id"), id128);
  assert.equal((await problemOf(missing)).request_id, id128);
});

appTest("an insane or missing X-Request-Id is replaced by a new UUID", async ({ send }) => {
  const given = ["r".repeat(129), "has space", "<script>", "a,b", "é", ""];
  const seen = new Set<string>();
  for (const id of [...given, null]) {
    const headers: Record<string, string> = id === null ? {} : { "x-request-id": id };
    const response = await send("GET", "/api/customers/nope", { headers });
    const requestId = response.headers.get("x-request-id")!;
    assert.match(requestId, UUID, `for ${id}`);
    assert.equal((await problemOf(response)).request_id, requestId);
    seen.add(requestId);
  }
  assert.equal(seen.size, given.length + 1);
});

appTest("every response carries nosniff and a request id", async ({ send, handler }) => {
  const created = await send("POST", "/api/customers", { body: ADA });
  const id = (await created.json()).id;
  const responses = [
    created,
    await send("GET", "/api/customers"),
    await send("GET", `/api/customers/${id}`),
    await send("GET", `/api/customers/${id}`, { headers: { "if-none-match": '"1"' } }),
    await send("HEAD", `/api/customers/${id}`),
    await send("POST", "/api/customers", { body: "{" }),
    await send("POST", "/api/customers", { body: ADA }),
    await send("PATCH", "/api/customers"),
    await send("GET", "/api/customers", { headers: { authorization: "" } }),
    await send("GET", "/nowhere"),
    await handler(new Request("http://x/healthz")),
    await handler(new Request("http://x/readyz")),
    await send("DELETE", `/api/customers/${id}`),
  ];
  assert.deepEqual(
    responses.map((r) => r.status),
    [201, 200, 200, 304, 200, 400, 409, 405, 401, 404, 200, 200, 204],
  );
  for (const response of responses) {
    assertCommonHeaders(response);
    if (!response.bodyUsed) await response.body?.cancel();
  }
});

appTest("HEAD answers like GET with an empty body", async ({ send }) => {
  const created = await (await send("POST", "/api/customers", { body: ADA })).json();
  const get = await send("GET", `/api/customers/${created.id}`);
  const head = await send("HEAD", `/api/customers/${created.id}`);
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("etag"), get.headers.get("etag"));
  assert.equal(head.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(head.body, null);
  assert.equal(await head.text(), "");
  await get.body?.cancel();
  const list = await send("HEAD", "/api/customers");
  assert.equal(list.status, 200);
  assert.equal(list.body, null);
});

appTest("HEAD of an error answers its status with an empty body", async ({ send }) => {
  const missing = await send("HEAD", `/api/customers/${idAt(99)}`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("content-type"), "application/problem+json");
  assert.equal(missing.body, null);
  const unauthenticated = await send("HEAD", "/api/customers", { headers: { authorization: "" } });
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.body, null);
});

appTest("/healthz and /readyz answer 200 without a token", async ({ handler }) => {
  for (const [path, status] of [["/healthz", "ok"], ["/readyz", "ready"]]) {
    const response = await handler(new Request(`http://x${path}`));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await response.json(), { status });
    const head = await handler(new Request(`http://x${path}`, { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(head.body, null);
  }
});

appTest("an unknown path answers 404 problem+json, even without a token", async ({ handler }) => {
  for (const path of ["/", "/api", "/api/customers/", "/api/customers/a/b", "//api/customers"]) {
    const response = await handler(new Request(`http://x${path}`));
    assert.equal(response.status, 404, path);
    const body = await problemOf(response);
    assert.equal(body.type, "urn:problem-type:customer-api:not-found");
    assert.equal(body.status, 404);
  }
});

appTest("a malformed or unknown customer id answers 404", async ({ send }) => {
  const wellFormed = idAt(1).toLowerCase();
  for (
    const id of ["not-a-ulid", wellFormed, "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01JDQ8Z5K3", idAt(42)]
  ) {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const body = method === "PUT" || method === "PATCH" ? ADA : undefined;
      const response = await send(method, `/api/customers/${id}`, { body });
      assert.equal(response.status, 404, `${method} ${id}`);
      assert.equal((await problemOf(response)).type, "urn:problem-type:customer-api:not-found");
    }
  }
});

appTest("a known path with another method answers 405 with an Allow header", async ({ send }) => {
  const cases: [string, string, string][] = [
    ["PATCH", "/api/customers", "GET, POST, HEAD"],
    ["DELETE", "/api/customers", "GET, POST, HEAD"],
    ["POST", `/api/customers/${idAt(1)}`, "GET, PUT, PATCH, DELETE, HEAD"],
    ["POST", "/healthz", "GET, HEAD"],
    ["OPTIONS", "/readyz", "GET, HEAD"],
  ];
  for (const [method, path, allow] of cases) {
    const response = await send(method, path);
    assert.equal(response.status, 405, `${method} ${path}`);
    assert.equal(response.headers.get("allow"), allow);
    const body = await problemOf(response);
    assert.equal(body.type, "urn:problem-type:customer-api:method-not-allowed");
  }
});

appTest("/api/customers needs a bearer token: 401 with the plain challenge", async ({ send }) => {
  const response = await send("GET", "/api/customers", { headers: { authorization: "" } });
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="customers"');
  assert.equal((await problemOf(response)).type, "urn:problem-type:customer-api:unauthenticated");
});

appTest("a read-only token cannot create: 403 insufficient_scope", async ({ send }) => {
  const readOnly = `Bearer ${await token("customers:read")}`;
  const response = await send("POST", "/api/customers", {
    body: ADA,
    headers: { authorization: readOnly },
  });
  assert.equal(response.status, 403);
  assert.equal(
    response.headers.get("www-authenticate"),
    'Bearer realm="customers", error="insufficient_scope", scope="customers:write"',
  );
  await response.body?.cancel();
  const list = await send("GET", "/api/customers", { headers: { authorization: readOnly } });
  assert.equal(list.status, 200);
  assert.deepEqual(await list.json(), { data: [], next_cursor: null });
});

appTest("POST creates: 201, Location, ETag and the customer", async ({ send }) => {
  const response = await send("POST", "/api/customers", { body: ADA });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get("location"), `/api/customers/${idAt(1)}`);
  assert.equal(response.headers.get("etag"), '"1"');
  assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
  assert.deepEqual(await response.json(), {
    id: idAt(1),
    name: "Ada Lovelace",
    email: "ada@example.com",
    phone: null,
    address: null,
    metadata: {},
    created_at: "2026-11-21T10:00:00.000Z",
    updated_at: "2026-11-21T10:00:00.000Z",
    version: 1,
  });
});

appTest(
  "a repeated POST with the same Idempotency-Key answers the first response again",
  async ({ send }) => {
    const headers = { "idempotency-key": "order-42" };
    const first = await send("POST", "/api/customers", { body: ADA, headers });
    const again = await send("POST", "/api/customers", { body: ADA, headers });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(first.headers.has("idempotent-replayed"), false);
    assert.equal(again.headers.get("location"), first.headers.get("location"));
    assert.deepEqual(await again.json(), await first.json());
    const list = await (await send("GET", "/api/customers")).json();
    assert.equal(list.data.length, 1);
  },
);

appTest(
  "an Idempotency-Key that is empty, too long or not printable ASCII answers 400",
  async ({ send }) => {
    for (const key of ["", "k".repeat(256), "a\tb"]) {
      const response = await send("POST", "/api/customers", {
        body: ADA,
        headers: { "idempotency-key": key },
      });
      assert.equal(response.status, 400);
      assert.equal(
        (await problemOf(response)).detail,
        "Idempotency-Key must be 1 to 255 printable ASCII characters",
      );
    }
  },
);

appTest(
  "GET with the current ETag in If-None-Match answers 304 without a body",
  async ({ send }) => {
    await send("POST", "/api/customers", { body: ADA });
    const response = await send("GET", `/api/customers/${idAt(1)}`, {
      headers: { "if-none-match": '"1"' },
    });
    assert.equal(response.status, 304);
    assert.equal(response.headers.get("etag"), '"1"');
    assert.equal(response.body, null);
  },
);

appTest("PUT with a stale If-Match answers 412 and changes nothing", async ({ send }) => {
  await send("POST", "/api/customers", { body: ADA });
  const response = await send("PUT", `/api/customers/${idAt(1)}`, {
    body: { ...ADA, name: "Changed" },
    headers: { "if-match": '"7"' },
  });
  assert.equal(response.status, 412);
  assert.equal(
    (await problemOf(response)).type,
    "urn:problem-type:customer-api:precondition-failed",
  );
  const current = await (await send("GET", `/api/customers/${idAt(1)}`)).json();
  assert.equal(current.name, "Ada Lovelace");
  assert.equal(current.version, 1);
});

appTest("PATCH accepts application/merge-patch+json and bumps the ETag", async ({ send }) => {
  await send("POST", "/api/customers", { body: ADA });
  const response = await send("PATCH", `/api/customers/${idAt(1)}`, {
    body: JSON.stringify({ phone: "+442079460958" }),
    headers: { "content-type": "application/merge-patch+json", "if-match": '"1"' },
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("etag"), '"2"');
  const body = await response.json();
  assert.equal(body.phone, "+442079460958");
  assert.equal(body.version, 2);
});

appTest("DELETE answers 204, then the customer is 404 and its email is free", async ({ send }) => {
  await send("POST", "/api/customers", { body: ADA });
  const deleted = await send("DELETE", `/api/customers/${idAt(1)}`);
  assert.equal(deleted.status, 204);
  assert.equal(deleted.body, null);
  const gone = await send("GET", `/api/customers/${idAt(1)}`);
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
  const again = await send("POST", "/api/customers", { body: ADA });
  assert.equal(again.status, 201);
  assert.equal((await again.json()).id, idAt(2));
});

appTest("the list pages with next_cursor and a Link header keeping the query", async ({ send }) => {
  for (let i = 0; i < 3; i++) {
    await send("POST", "/api/customers", { body: { name: `C ${i}`, email: `c${i}@example.com` } });
  }
  const first = await send("GET", "/api/customers?limit=2&q=c");
  const page = await first.json();
  assert.deepEqual(page.data.map((c: { id: string }) => c.id), [idAt(1), idAt(2)]);
  assert.equal(typeof page.next_cursor, "string");
  assert.equal(
    first.headers.get("link"),
    `</api/customers?limit=2&q=c&cursor=${page.next_cursor}>; rel="next"`,
  );
  const second = await send("GET", `/api/customers?limit=2&q=c&cursor=${page.next_cursor}`);
  assert.equal(second.headers.has("link"), false);
  assert.deepEqual(await second.json(), {
    data: [{
      id: idAt(3),
      name: "C 2",
      email: "c2@example.com",
      phone: null,
      address: null,
      metadata: {},
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:00.000Z",
      version: 1,
    }],
    next_cursor: null,
  });
});

appTest("a body over the limit answers 413, a wrong media type 415", async ({ send }) => {
  const big = await send("POST", "/api/customers", {
    body: { ...ADA, name: "x".repeat(MAX_BODY) },
  });
  assert.equal(big.status, 413);
  assert.equal((await problemOf(big)).type, "urn:problem-type:customer-api:body-too-large");
  const text = await send("POST", "/api/customers", {
    body: JSON.stringify(ADA),
    headers: { "content-type": "text/plain" },
  });
  assert.equal(text.status, 415);
  assert.equal(text.headers.get("accept"), "application/json");
  await text.body?.cancel();
});

appTest("invalid fields answer 422 listing every violation", async ({ send }) => {
  const response = await send("POST", "/api/customers", { body: { email: "nope", extra: 1 } });
  assert.equal(response.status, 422);
  const body = await problemOf(response);
  assert.equal(body.type, "urn:problem-type:customer-api:validation-error");
  assert.deepEqual(
    body.errors.map((e: { pointer: string }) => e.pointer).sort(),
    ["/email", "/extra", "/name"],
  );
});

appTest(
  "an unexpected error answers a generic 500 with no internals and reaches onError",
  async ({ send, errors }) => {
    const response = await send("GET", "/api/customers", {
      headers: { "x-request-id": "trace-1" },
    });
    assert.equal(response.status, 500);
    assertCommonHeaders(response);
    const text = await response.text();
    assert.equal(response.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(JSON.parse(text), {
      type: "urn:problem-type:customer-api:internal-error",
      title: "Internal server error",
      status: 500,
      detail: "An unexpected error occurred; the request id identifies it in the logs",
      request_id: "trace-1",
    });
    for (const leak of ["hunter2", "Error", "auth_backend"]) {
      assert.equal(text.includes(leak), false, leak);
    }
    assert.equal(errors.length, 1);
    assert.equal(errors[0].requestId, "trace-1");
    assert.equal((errors[0].error as Error).message, "auth_backend password hunter2 rejected");
  },
  {
    authenticate: (() => {
      throw new Error("auth_backend password hunter2 rejected");
    }) as Authenticate,
  },
);

appTest("client errors do not reach onError", async ({ send, errors }) => {
  const responses = [
    await send("GET", "/nowhere"),
    await send("POST", "/api/customers", { body: "{" }),
    await send("GET", "/api/customers", { headers: { authorization: "Bearer x.y.z" } }),
  ];
  assert.deepEqual(responses.map((r) => r.status), [404, 400, 401]);
  for (const response of responses) await response.body?.cancel();
  assert.equal(errors.length, 0);
});

appTest("no client input answers a 5xx", async ({ send, errors }) => {
  await send("POST", "/api/customers", { body: ADA });
  const deepArray = "[".repeat(500) + "]".repeat(500);
  const cases: [string, string, { body?: unknown; headers?: HeadersInit }][] = [
    ["GET", "/api/customers?limit=0", {}],
    ["GET", "/api/customers?limit=abc&limit=2", {}],
    ["GET", "/api/customers?cursor=%FF%FE", {}],
    ["GET", "/api/customers?%FF=1", {}],
    ["GET", "/api/customers?email=", {}],
    ["GET", `/api/customers/${"%00".repeat(40)}`, {}],
    ["GET", `/api/customers/${idAt(1)}`, { headers: { "if-none-match": "\u00ff" } }],
    ["PUT", `/api/customers/${idAt(1)}`, { body: "null", headers: { "if-match": "garbage" } }],
    ["PUT", `/api/customers/${idAt(1)}`, { body: deepArray }],
    ["PATCH", `/api/customers/${idAt(1)}`, { body: "[]" }],
    ["PATCH", `/api/customers/${idAt(1)}`, { body: '{"__proto__":{"name":"x"}}' }],
    ["POST", "/api/customers", { body: new Uint8Array([0xff]) }],
    ["POST", "/api/customers", { body: deepArray, headers: { "idempotency-key": "deep" } }],
    ["POST", "/api/customers", { body: '{"name":"\\ud800","email":"x@y.co"}' }],
    ["POST", "/api/customers", { body: ADA, headers: { authorization: "Bearer " } }],
    ["DELETE", `/api/customers/${idAt(1)}`, { headers: { "if-match": '"99999999999999999"' } }],
  ];
  for (const [method, path, init] of cases) {
    const response = await send(method, path, init);
    assert.ok(response.status < 500, `${method} ${path} answered ${response.status}`);
    await response.body?.cancel();
  }
  assert.equal(errors.length, 0);
});

appTest(
  "a deeply nested body with an Idempotency-Key answers 422, not a 500",
  async ({ send, errors }) => {
    // 32 000 levels fit in 64 KiB; hashing the body for the key must not overflow the stack.
    const deep = "[".repeat(32_000) + "]".repeat(32_000);
    const response = await send("POST", "/api/customers", {
      body: deep,
      headers: { "idempotency-key": "deep" },
    });
    assert.equal(response.status, 422);
    await response.body?.cancel();
    assert.equal(errors.length, 0);
  },
  { maxBodyBytes: 65536 },
);

appTest(
  "a deeply nested merge patch answers 422, not a 500",
  async ({ send, errors }) => {
    await send("POST", "/api/customers", { body: ADA });
    const depth = 10_000;
    const patch = '{"x":'.repeat(depth) + "1" + "}".repeat(depth);
    const response = await send("PATCH", `/api/customers/${idAt(1)}`, { body: patch });
    assert.equal(response.status, 422);
    await response.body?.cancel();
    assert.equal(errors.length, 0);
  },
  { maxBodyBytes: 65536 },
);
