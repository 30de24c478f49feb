/** Contract §4–§5: 400, 404, 405, 413 and 415 as problem+json, and no 5xx for any garbage. */
import assert from "node:assert/strict";
import {
  ApiClient,
  type ApiResponse,
  assertProblem,
  type Customer,
  newCustomer,
  type RequestOptions,
  UNKNOWN_ID,
} from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken, makeUnsignedToken } from "../support/tokens.ts";

const MAX_BODY = 64 * 1024;
const MERGE_PATCH = "application/merge-patch+json";

/** A valid customer JSON padded with spaces to exactly `size` bytes. */
function paddedBody(size: number): Uint8Array<ArrayBuffer> {
  const json = JSON.stringify(newCustomer());
  return new TextEncoder().encode(json + " ".repeat(size - json.length));
}

/** The same bytes, streamed in chunks so the request has no Content-Length. */
function chunked(bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array<ArrayBuffer>> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 8192));
      offset += 8192;
    },
  });
}

function allowed(res: ApiResponse): string[] {
  return (res.headers.get("allow") ?? "").split(",").map((m) => m.trim().toUpperCase())
    .filter(Boolean).sort();
}

Deno.test("client errors", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const customer: Customer = await api.create(newCustomer());
    const one = `/api/customers/${customer.id}`;
    const writes: [string, string, string][] = [
      ["POST", "/api/customers", "application/json"],
      ["PUT", one, "application/json"],
      ["PATCH", one, MERGE_PATCH],
    ];

    await t.step("a body that is not JSON answers 400 on POST, PUT and PATCH", async () => {
      for (const [method, path, contentType] of writes) {
        for (const body of ['{"name": "x",', "not json", "", "{'name': 'x'}", '{"a":1}}']) {
          const res = await api.request(method, path, { body, contentType });
          assertProblem(res, 400);
        }
      }
    });

    await t.step("a body that is not valid UTF-8 answers 400 on POST, PUT and PATCH", async () => {
      const invalid = [
        [0xff, 0xfe], // never valid in UTF-8
        [0xc0, 0xaf], // overlong "/"
        [0xed, 0xa0, 0x80], // an encoded surrogate
        [0xe2, 0x82], // truncated sequence
      ];
      for (const [method, path, contentType] of writes) {
        for (const bad of invalid) {
          const body = new Uint8Array([
            ...new TextEncoder().encode('{"name":"'),
            ...bad,
            ...new TextEncoder().encode(`","email":"utf8-${bad.join("")}@example.com"}`),
          ]);
          const res = await api.request(method, path, { body, contentType });
          assertProblem(res, 400);
        }
      }
      const after = await api.get(one);
      assert.equal(after.body.version, 1, "bad bodies changed nothing");
    });

    await t.step("a bad limit (0, 1001, abc, -1, 1.5, 10x) answers 400", async () => {
      for (const limit of ["0", "1001", "abc", "-1", "1.5", "10x"]) {
        assertProblem(await api.get(`/api/customers?limit=${limit}`), 400);
      }
    });

    await t.step("a cursor the server never issued answers 400", async () => {
      for (const cursor of ["garbage", "!!!", "eyJ4IjoxfQ", "%00", "-", "Zm9v"]) {
        assertProblem(await api.get(`/api/customers?cursor=${cursor}`), 400);
      }
    });

    await t.step("a body of exactly 64 KiB is accepted (limit is on bytes over it)", async () => {
      const res = await api.post("/api/customers", {
        body: paddedBody(MAX_BODY),
        contentType: "application/json",
      });
      assert.equal(res.status, 201, res.text);
    });

    await t.step("a body over 64 KiB with Content-Length answers 413", async () => {
      for (const [method, path, contentType] of writes) {
        const res = await api.request(method, path, {
          body: paddedBody(MAX_BODY + 1),
          contentType,
        });
        assertProblem(res, 413);
      }
    });

    await t.step("a body over 64 KiB streamed without Content-Length answers 413", async () => {
      for (const [method, path, contentType] of writes) {
        const res = await api.request(method, path, {
          body: chunked(paddedBody(MAX_BODY * 4)),
          contentType,
        });
        assertProblem(res, 413);
      }
      const after = await api.get(one);
      assert.equal(after.body.version, 1, "oversized bodies changed nothing");
    });

    await t.step("missing or wrong Content-Type on POST, PUT, PATCH answers 415", async () => {
      const body = JSON.stringify(newCustomer());
      for (const [method, path] of writes) {
        for (const contentType of [null, "text/plain", "application/xml", "application/jsonx"]) {
          const res = await api.request(method, path, { body, contentType });
          assertProblem(res, 415);
        }
      }
      const listed = await api.listAll();
      assert.equal(listed.length, 2, "415 created nothing");
    });

    await t.step("an unknown path answers 404", async () => {
      for (
        const path of ["/", "/api", "/api/nope", "/api/customer", `${one}/extra`, "/favicon.ico"]
      ) {
        assertProblem(await api.get(path), 404);
      }
    });

    await t.step("a malformed id (lower case, short, long, bad letters) answers 404", async () => {
      const malformed = [
        customer.id.toLowerCase(),
        customer.id.slice(0, 25),
        `${customer.id}0`,
        "01ARZ3NDEKTSV4RRFFQ69G5FAI", // I is not Crockford base32
        "01ARZ3NDEKTSV4RRFFQ69G5FAU", // U neither
        "81ARZ3NDEKTSV4RRFFQ69G5FAV", // overflows 48-bit time
        "not-an-id",
      ];
      for (const id of malformed) {
        const path = `/api/customers/${id}`;
        assertProblem(await api.get(path), 404);
        assertProblem(await api.put(path, { json: newCustomer() }), 404);
        assertProblem(
          await api.patch(path, { json: { name: "X" }, contentType: MERGE_PATCH }),
          404,
        );
        assertProblem(await api.delete(path), 404);
      }
    });

    await t.step("a well-formed id of no customer answers 404", async () => {
      assertProblem(await api.get(`/api/customers/${UNKNOWN_ID}`), 404);
    });

    await t.step("a wrong method on the collection answers 405 with Allow", async () => {
      for (const method of ["DELETE", "PUT", "PATCH"]) {
        const res = await api.request(method, "/api/customers", {
          json: newCustomer(),
          contentType: method === "PATCH" ? MERGE_PATCH : undefined,
        });
        assertProblem(res, 405);
        const allow = allowed(res);
        for (const m of ["GET", "HEAD", "POST"]) assert.ok(allow.includes(m), `Allow: ${allow}`);
        assert.ok(!allow.includes(method), `Allow lists ${method}`);
      }
    });

    await t.step("POST on a customer answers 405 with Allow", async () => {
      const res = await api.post(one, { json: newCustomer() });
      assertProblem(res, 405);
      const allow = allowed(res);
      for (const m of ["GET", "HEAD", "PUT", "PATCH", "DELETE"]) {
        assert.ok(allow.includes(m), `Allow: ${allow}`);
      }
      assert.ok(!allow.includes("POST"), `Allow lists POST`);
    });

    await t.step(
      "JSON nested 10 000 levels deep answers 4xx, not 5xx, on every write",
      async () => {
        // 10 000 levels still fit in 64 KiB, so only the parser/merger can stop them.
        const nested = '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000);
        const failures: string[] = [];
        for (const [method, path, contentType] of writes) {
          for (const field of [null, "metadata", "address"]) {
            const body = field === null ? nested : `{"${field}":${nested}}`;
            const res = await api.request(method, path, { body, contentType });
            if (res.status >= 500) {
              failures.push(`${method} ${field ?? "whole body"} → ${res.status}`);
            } else assertProblem(res, res.status);
          }
        }
        assert.deepEqual(failures, []);
      },
    );

    await t.step("no garbage input gets a 5xx, and every error is problem+json", async () => {
      const unsigned = makeUnsignedToken();
      const badExp = await makeToken({ omitExp: true, extraClaims: { exp: "tomorrow" } });
      const weirdScopes = await makeToken({ scope: null, extraClaims: { scp: { a: 1 } } });
      const numericScope = await makeToken({ scope: null, extraClaims: { scope: 42 } });
      const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
      const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
      const json = (value: unknown) => JSON.stringify(value);
      const jsonBodies = [
        deep(10_000),
        deepObject(10_000),
        "1e999",
        "-0",
        "true",
        "null",
        '""',
        "[]",
        "\ufeff" + json(newCustomer()),
        json(newCustomer({ name: 1e308 })),
        json({ name: { $gt: "" }, email: [] }),
        `{"__proto__": {"admin": true}, "name": "Proto", "email": "proto@example.com"}`,
        json(newCustomer({ constructor: { prototype: { polluted: true } } })),
        json(newCustomer({
          metadata: { __proto__: "x", constructor: "y", toString: "z", hasOwnProperty: "w" },
        })),
        `{"name":"Dup","name":"Dup2","email":"dup@example.com"}`,
        json({ name: "\u0000", email: "nul\u0000@example.com" }),
        '{"name":"\\ud800","email":"surrogate@example.com"}',
        json(newCustomer({ address: { country: { toString: 1 } } })),
        json(newCustomer({ address: [] })),
        json(newCustomer({ address: "x" })),
        json(newCustomer({ metadata: [] })),
        json(newCustomer({ metadata: null })),
        json(newCustomer({ metadata: { a: { b: "c" } } })),
        json(newCustomer({ email: "ü@例え.jp" })),
        json(newCustomer({ email: "a@b.c".repeat(1000) })),
        json(newCustomer({ name: "x".repeat(60_000) })),
        json(newCustomer({ version: "abc", id: { x: 1 }, created_at: 5 })),
        json(newCustomer({ phone: 12345 })),
        json({ email: null, name: null, phone: null, address: null }),
      ];
      const cases: [string, string, RequestOptions][] = [];
      for (const body of jsonBodies) {
        cases.push(["POST", "/api/customers", { body, contentType: "application/json" }]);
        cases.push(["PUT", one, { body, contentType: "application/json" }]);
        cases.push(["PATCH", one, { body, contentType: MERGE_PATCH }]);
      }
      for (
        const contentType of [
          'application/json; charset="',
          ";;;",
          "application/json; charset=latin1",
          "*/*",
        ]
      ) {
        cases.push(["POST", "/api/customers", { json: newCustomer(), contentType }]);
      }
      const headerSets: Record<string, string>[] = [
        { "if-match": "garbage" },
        { "if-match": '"' },
        { "if-match": '"é"' },
        { "if-none-match": "W/" },
        { "if-none-match": '"1", ,,' },
        { "idempotency-key": "é" },
        { "idempotency-key": "k".repeat(10_000) },
        { "x-request-id": "é" },
        { "x-request-id": "r".repeat(10_000) },
        { authorization: "Bearer" },
        { authorization: "Bearer " },
        { authorization: "Bearer é" },
        { authorization: "Basic Zm9vOmJhcg==" },
        { authorization: "Bearer a.b.c" },
        { authorization: `Bearer ${"x".repeat(10_000)}` },
        { authorization: `Bearer ${unsigned}` },
        { authorization: `Bearer ${badExp}` },
        { authorization: `Bearer ${weirdScopes}` },
        { authorization: `Bearer ${numericScope}` },
        { authorization: "Bearer x y z" },
        { "content-length": "abc" },
        { "accept": "application/xml" },
      ];
      for (const headers of headerSets) {
        cases.push(["GET", one, { headers }]);
        cases.push(["PATCH", one, { headers, json: { name: "H" }, contentType: MERGE_PATCH }]);
        cases.push(["POST", "/api/customers", { headers, json: newCustomer() }]);
        cases.push(["DELETE", `/api/customers/${UNKNOWN_ID}`, { headers }]);
      }
      const paths = [
        "/api/customers?limit=%00",
        "/api/customers?limit=99999999999999999999999",
        "/api/customers?limit=1&limit=2",
        "/api/customers?limit[]=1",
        "/api/customers?cursor=%FF",
        "/api/customers?cursor=%E9",
        `/api/customers?cursor=${"A".repeat(5000)}`,
        "/api/customers?email=%",
        "/api/customers?email=%ZZ",
        "/api/customers?q=%ZZ",
        `/api/customers?q=${"q".repeat(5000)}`,
        "/api/customers?q=.*(a+)+$",
        "/api/customers/%ZZ",
        "/api/customers/%00",
        "/api/customers/..%2F..%2Fetc%2Fpasswd",
        "/api/customers//",
        "/api/customers/",
        `${server.url}//api/customers`, // a bare "//…" would be a protocol-relative URL
        `${one}/`,
        `${one}%00`,
        "/api/customers/%F0%9F%98%80",
      ];
      for (const path of paths) {
        cases.push(["GET", path, {}]);
        cases.push(["DELETE", path, {}]);
      }
      for (const method of ["OPTIONS", "FOO", "PROPFIND"]) {
        cases.push([method, "/api/customers", {}]);
        cases.push([method, one, {}]);
      }
      cases.push(["POST", "/api/customers", {
        body: new Uint8Array([0, 1, 2, 255]),
        contentType: "application/json",
      }]);

      const failures: string[] = [];
      for (const [method, path, options] of cases) {
        const label = `${method} ${path.slice(0, 80)} ${
          JSON.stringify({ ...options, body: String(options.body ?? "").slice(0, 60) }).slice(
            0,
            160,
          )
        }`;
        let res: ApiResponse;
        try {
          res = await api.request(method, path, options);
        } catch (error) {
          failures.push(`${label} → request failed: ${error}`);
          continue;
        }
        if (res.status >= 500) failures.push(`${label} → ${res.status} ${res.text}`);
        else if (res.status >= 400 && method !== "HEAD") {
          try {
            assertProblem(res, res.status);
          } catch (error) {
            failures.push(
              `${label} → ${res.status} not a proper problem: ${(error as Error).message}`,
            );
          }
        }
      }
      assert.deepEqual(
        failures,
        [],
        `${failures.length} of ${cases.length} garbage requests misbehaved`,
      );
      const alive = await api.get("/api/customers?limit=1");
      assert.equal(alive.status, 200, "server still answers after the garbage");
    });
  } finally {
    await server.dispose();
  }
});
