/** Issue 5 point 7: CORS off by default, an exact-origin allow-list, and correct preflight. */
import assert from "node:assert/strict";
import { ApiClient, type ApiResponse, assertProblem, UNKNOWN_ID } from "../support/api.ts";
import { runUntilExit, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const APP = "https://app.example.com";
const EVIL = "https://evil.example.com";
const ONE = `/api/customers/${UNKNOWN_ID}`;

/** The comma-separated tokens of a list header, lower-cased. */
function listOf(res: ApiResponse, name: string): string[] {
  return (res.headers.get(name) ?? "").split(",").map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");
}

function preflight(
  api: ApiClient,
  path: string,
  origin: string,
  method: string,
  requestHeaders?: string,
): Promise<ApiResponse> {
  const headers: Record<string, string> = { origin, "access-control-request-method": method };
  if (requestHeaders !== undefined) headers["access-control-request-headers"] = requestHeaders;
  // A browser's preflight carries no credentials.
  return api.request("OPTIONS", path, { headers, token: null });
}

Deno.test("CORS_ORIGINS=https://app.example.com", async (t) => {
  await using server = await startServer({ env: { CORS_ORIGINS: APP } });
  const api = new ApiClient(server.url, await makeToken());
  const seen: ApiResponse[] = [];
  const keep = (res: ApiResponse) => (seen.push(res), res);

  await t.step(
    "an allowed origin's GET echoes it, exposes the API headers and varies on Origin",
    async () => {
      const res = keep(await api.get("/api/customers", { headers: { origin: APP } }));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get("access-control-allow-origin"), APP);
      const exposed = listOf(res, "access-control-expose-headers");
      for (const name of ["etag", "location", "link", "x-request-id", "retry-after", "ratelimit"]) {
        assert.ok(exposed.includes(name), `Expose-Headers lacks ${name}: ${exposed}`);
      }
      assert.ok(listOf(res, "vary").includes("origin"), `Vary: ${res.headers.get("vary")}`);
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
    },
  );

  await t.step("an allowed origin can read error answers too (401 without a token)", async () => {
    const res = keep(await api.get("/api/customers", { headers: { origin: APP }, token: null }));
    assertProblem(res, 401);
    assert.equal(res.headers.get("access-control-allow-origin"), APP);
    assert.ok(listOf(res, "vary").includes("origin"));
  });

  await t.step(
    "a refused origin gets its answer without any Access-Control-Allow-Origin",
    async () => {
      const near = ["http://app.example.com", "https://app.example.com:8443", "null"];
      for (const origin of [EVIL, "https://app.example.com.evil.example", ...near]) {
        const res = keep(await api.get("/api/customers", { headers: { origin } }));
        assert.equal(res.status, 200, origin);
        assert.equal(res.headers.get("access-control-allow-origin"), null, origin);
        assert.equal(res.headers.get("access-control-expose-headers"), null, origin);
        assert.ok(listOf(res, "vary").includes("origin"), origin);
      }
    },
  );

  await t.step("a request without Origin gets no CORS headers but still Vary: Origin", async () => {
    const res = keep(await api.get("/api/customers"));
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    assert.ok(listOf(res, "vary").includes("origin"));
  });

  await t.step("a preflight for PATCH from the allowed origin is a 204 with Allow-*", async () => {
    const res = keep(
      await preflight(api, ONE, APP, "PATCH", "authorization, content-type, if-match"),
    );
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, "");
    assert.equal(res.headers.get("access-control-allow-origin"), APP);
    assert.deepEqual(listOf(res, "access-control-allow-methods"), [
      "get",
      "put",
      "patch",
      "delete",
      "head",
    ]);
    const allowed = listOf(res, "access-control-allow-headers");
    for (const name of ["authorization", "if-match", "idempotency-key", "content-type"]) {
      assert.ok(allowed.includes(name), `Allow-Headers lacks ${name}: ${allowed}`);
    }
    assert.equal(res.headers.get("access-control-max-age"), "600");
    const vary = listOf(res, "vary");
    for (const name of ["origin", "access-control-request-method"]) {
      assert.ok(vary.includes(name), `Vary lacks ${name}: ${vary}`);
    }
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
  });

  await t.step("a preflight on the collection lists the collection's methods", async () => {
    const res = keep(await preflight(api, "/api/customers", APP, "POST", "idempotency-key"));
    assert.equal(res.status, 204, res.text);
    assert.deepEqual(listOf(res, "access-control-allow-methods"), ["get", "post", "head"]);
  });

  await t.step("a preflight from a refused origin is a 403 problem without Allow-*", async () => {
    for (const origin of [EVIL, "http://app.example.com"]) {
      const res = keep(await preflight(api, ONE, origin, "PATCH", "authorization"));
      assertProblem(res, 403);
      assert.equal(res.body.type, "urn:problem-type:customer-api:origin-not-allowed");
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.equal(res.headers.get("access-control-allow-methods"), null);
      assert.equal(res.headers.get("access-control-allow-headers"), null);
    }
  });

  await t.step("an OPTIONS that is not a preflight is still a 405 with Allow", async () => {
    const res = keep(await api.request("OPTIONS", ONE, { headers: { origin: APP } }));
    assertProblem(res, 405);
    assert.deepEqual(listOf(res, "allow"), ["get", "put", "patch", "delete", "head"]);
  });

  await t.step("no answer above allowed any origin with * or credentials", () => {
    assert.equal(seen.length, 13, "every answer of the steps above was kept");
    for (const res of seen) {
      assert.notEqual(res.headers.get("access-control-allow-origin"), "*");
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
    }
  });
});

Deno.test("several CORS_ORIGINS are each allowed", async () => {
  const other = "http://localhost:5173";
  await using server = await startServer({ env: { CORS_ORIGINS: `${APP}, ${other}` } });
  const api = new ApiClient(server.url, await makeToken());
  for (const origin of [APP, other]) {
    const res = await api.get("/api/customers", { headers: { origin } });
    assert.equal(res.headers.get("access-control-allow-origin"), origin);
    assert.equal((await preflight(api, "/api/customers", origin, "POST")).status, 204);
  }
});

Deno.test("CORS is off by default: no CORS headers, and a preflight is a 405 with Allow", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const get = await api.get("/api/customers", { headers: { origin: APP } });
  assert.equal(get.status, 200);
  assert.equal(get.headers.get("access-control-allow-origin"), null);
  assert.equal(get.headers.get("access-control-expose-headers"), null);
  const res = await preflight(api, ONE, APP, "PATCH", "authorization");
  assertProblem(res, 405);
  assert.deepEqual(listOf(res, "allow"), ["get", "put", "patch", "delete", "head"]);
  assert.equal(res.headers.get("access-control-allow-origin"), null);
  assert.equal(res.headers.get("access-control-allow-methods"), null);
});

Deno.test("CORS_ORIGINS with *, a path or a trailing slash refuses to start, quoting the entry", async () => {
  for (const entry of ["*", "https://app.example.com/path", "https://app.example.com/"]) {
    const result = await runUntilExit({ env: { CORS_ORIGINS: `${APP},${entry}` } });
    assert.equal(result.code, 78, `${entry}: ${result.stderr}`);
    assert.equal(
      result.stderr.trim(),
      `customer-api cannot start: CORS_ORIGINS entry "${entry}" must be an exact origin such as ` +
        `https://app.example.com (no "*", path or trailing slash)`,
    );
  }
});
