/** Contract §2: bearer JWT authentication and scopes, as a client sees them. */
import assert from "node:assert/strict";
import {
  ApiClient,
  type ApiResponse,
  assertProblem,
  newCustomer,
  UNKNOWN_ID,
} from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken, makeUnsignedToken, TEST_SECRET } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";
const NO_CREDENTIALS = 'Bearer realm="customers"';
const INVALID_TOKEN =
  /^Bearer realm="customers", error="invalid_token", error_description="[^"]*"$/;

function assertInvalidToken(res: ApiResponse, why: string): void {
  assertProblem(res, 401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  assert.match(challenge, INVALID_TOKEN, `${why}: WWW-Authenticate was ${challenge}`);
  assert.ok(!challenge.includes(TEST_SECRET) && !res.text.includes(TEST_SECRET), "secret leaked");
}

function assertInsufficientScope(res: ApiResponse, scope: string): void {
  assertProblem(res, 403);
  const challenge = res.headers.get("www-authenticate") ?? "";
  assert.ok(challenge.startsWith('Bearer realm="customers", '), challenge);
  assert.ok(challenge.includes('error="insufficient_scope"'), challenge);
  assert.ok(challenge.includes(`scope="${scope}"`), challenge);
}

Deno.test("authentication and scopes", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const customer = await api.create(newCustomer());
    const one = `/api/customers/${customer.id}`;
    const everyEndpoint = (): [string, string, object][] => [
      ["GET", "/api/customers", {}],
      ["HEAD", "/api/customers", {}],
      ["POST", "/api/customers", { json: newCustomer() }],
      ["GET", one, {}],
      ["HEAD", one, {}],
      ["PUT", one, { json: newCustomer() }],
      ["PATCH", one, { json: { name: "Changed" }, contentType: MERGE_PATCH }],
      ["DELETE", one, {}],
    ];

    await t.step('no Authorization answers 401 with exactly Bearer realm="customers"', async () => {
      for (const [method, path, options] of everyEndpoint()) {
        const res = await api.request(method, path, { ...options, token: null });
        assert.equal(res.status, 401, `${method} ${path}`);
        if (method !== "HEAD") assertProblem(res, 401);
        assert.equal(res.headers.get("www-authenticate"), NO_CREDENTIALS, `${method} ${path}`);
      }
      assert.equal((await api.get(one)).body.version, 1, "nothing changed");
    });

    await t.step("without a token even unknown or malformed ids answer 401, not 404", async () => {
      for (const id of [UNKNOWN_ID, "not-an-id"]) {
        const res = await api.get(`/api/customers/${id}`, { token: null });
        assertProblem(res, 401);
      }
    });

    await t.step("a token in the query string or a cookie is never accepted", async () => {
      const token = await makeToken();
      const query = await api.get(`/api/customers?access_token=${token}`, { token: null });
      assertProblem(query, 401);
      assert.equal(query.headers.get("www-authenticate"), NO_CREDENTIALS);
      const cookie = await api.get("/api/customers", {
        token: null,
        headers: { cookie: `access_token=${token}; token=${token}` },
      });
      assertProblem(cookie, 401);
    });

    await t.step('an expired token answers 401 with error="invalid_token"', async () => {
      const expired = await makeToken({ ttlSeconds: -120 });
      assertInvalidToken(await api.get("/api/customers", { token: expired }), "expired");
    });

    await t.step("a token signed with another secret answers 401 invalid_token", async () => {
      const forged = await makeToken({ secret: "another-secret-that-is-also-32-bytes-long!!" });
      assertInvalidToken(await api.get("/api/customers", { token: forged }), "wrong secret");
      const write = await api.post("/api/customers", { json: newCustomer(), token: forged });
      assertInvalidToken(write, "wrong secret on POST");
    });

    await t.step("malformed, unsigned, exp-less and not-yet-valid tokens answer 401", async () => {
      const cases: [string, string][] = [
        ["garbage", "not-a-jwt"],
        ["three empty parts", ".."],
        ["alg none", makeUnsignedToken()],
        ["no exp", await makeToken({ omitExp: true })],
        ["nbf in 5 minutes", await makeToken({ extraClaims: { nbf: Date.now() / 1000 + 300 } })],
        ["tampered payload", tamper(await makeToken({ scope: "customers:read" }))],
      ];
      for (const [why, token] of cases) {
        assertInvalidToken(await api.get("/api/customers", { token }), why);
      }
    });

    await t.step("the Bearer scheme is matched case-insensitively", async () => {
      const token = await makeToken();
      for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
        const res = await api.get(one, {
          token: null,
          headers: { authorization: `${scheme} ${token}` },
        });
        assert.equal(res.status, 200, `${scheme}: ${res.text}`);
      }
    });

    await t.step(
      "a read-only token reads but every write answers 403 insufficient_scope",
      async () => {
        const readOnly = await makeToken({ scope: "customers:read" });
        assert.equal((await api.get(one, { token: readOnly })).status, 200);
        assert.equal((await api.get("/api/customers", { token: readOnly })).status, 200);
        assert.equal((await api.head(one, { token: readOnly })).status, 200);
        for (const [method, path, options] of everyEndpoint()) {
          if (method === "GET" || method === "HEAD") continue;
          const res = await api.request(method, path, { ...options, token: readOnly });
          assertInsufficientScope(res, "customers:write");
        }
        assert.equal((await api.get(one)).body.version, 1, "403 changed nothing");
        assert.equal((await api.listAll()).length, 1, "403 created nothing");
      },
    );

    await t.step("a write-only token answers 403 insufficient_scope on reads", async () => {
      const writeOnly = await makeToken({ scope: "customers:write" });
      assertInsufficientScope(await api.get(one, { token: writeOnly }), "customers:read");
      assertInsufficientScope(
        await api.get("/api/customers", { token: writeOnly }),
        "customers:read",
      );
    });

    await t.step("no scope, or look-alike scopes, grant nothing", async () => {
      const tokens = [
        await makeToken({ scope: null }),
        await makeToken({ scope: "" }),
        await makeToken({ scope: "customers:reader customers:writer" }),
        await makeToken({ scope: "customers:read,customers:write" }),
        await makeToken({ scope: "CUSTOMERS:READ" }),
      ];
      for (const token of tokens) {
        assertProblem(await api.get(one, { token }), 403);
        assertProblem(await api.post("/api/customers", { json: newCustomer(), token }), 403);
      }
    });

    await t.step("scopes may come from scp as a string or an array", async () => {
      const scpString = await makeToken({ scope: null, extraClaims: { scp: "customers:read" } });
      assert.equal((await api.get(one, { token: scpString })).status, 200);
      assertInsufficientScope(
        await api.post("/api/customers", { json: newCustomer(), token: scpString }),
        "customers:write",
      );
      const scpArray = await makeToken({
        scope: null,
        extraClaims: { scp: ["customers:read", "customers:write"] },
      });
      assert.equal((await api.get(one, { token: scpArray })).status, 200);
      const created = await api.post("/api/customers", { json: newCustomer(), token: scpArray });
      assert.equal(created.status, 201, created.text);
    });
  } finally {
    await server.dispose();
  }
});

Deno.test("issuer and audience are enforced when configured", async (t) => {
  const server = await startServer({
    env: { JWT_ISSUER: "https://issuer.test/", JWT_AUDIENCE: "customer-api" },
  });
  try {
    const api = new ApiClient(server.url, null);
    const token = (claims: Record<string, unknown>) => makeToken({ extraClaims: claims });

    await t.step(
      "a token with the configured iss and aud (string or array) is accepted",
      async () => {
        for (const aud of ["customer-api", ["other", "customer-api"]]) {
          const res = await api.get("/api/customers", {
            token: await token({ iss: "https://issuer.test/", aud }),
          });
          assert.equal(res.status, 200, `aud ${JSON.stringify(aud)}: ${res.text}`);
        }
      },
    );

    await t.step("a wrong or missing iss or aud answers 401 invalid_token", async () => {
      const cases: [string, Record<string, unknown>][] = [
        ["wrong iss", { iss: "https://evil.test/", aud: "customer-api" }],
        ["missing iss", { aud: "customer-api" }],
        ["wrong aud", { iss: "https://issuer.test/", aud: "other" }],
        ["missing aud", { iss: "https://issuer.test/" }],
      ];
      for (const [why, claims] of cases) {
        assertInvalidToken(await api.get("/api/customers", { token: await token(claims) }), why);
      }
    });
  } finally {
    await server.dispose();
  }
});

/** Swaps the payload for one granting more scopes, keeping the original signature. */
function tamper(token: string): string {
  const [header, , signature] = token.split(".");
  const payload = btoa(JSON.stringify({
    sub: "mallory",
    exp: Math.floor(Date.now() / 1000) + 3600,
    scope: "customers:read customers:write",
  })).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return `${header}.${payload}.${signature}`;
}
