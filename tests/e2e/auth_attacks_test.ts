/** Contract §2 against the real server process: every known JWT attack is turned away. */
import assert from "node:assert/strict";
import { exportSPKI, SignJWT } from "jose";
import { ApiClient, type ApiResponse, assertProblem, newCustomer } from "../support/api.ts";
import { keySetOf, newSigningKey, serveKeySet, signWith } from "../support/jwks.ts";
import { startServer } from "../support/server.ts";
import { makeToken, makeUnsignedToken, TEST_SECRET, type TokenOptions } from "../support/tokens.ts";

const CHALLENGE = 'Bearer realm="customers"';
const INVALID_TOKEN =
  /^Bearer realm="customers", error="invalid_token", error_description="([^"\\]+)"$/;
const ISSUER = "https://idp.example.test/";
const AUDIENCE = "customer-api";
// "Authorization: Bearer" with no token is read as a malformed bearer token (RFC 6750's
// b64token needs at least one character), so it gets the invalid_token challenge.
const EMPTY_BEARER_IS_INVALID_TOKEN = true;

/** 401 with the plain challenge: no credentials the server would even look at. */
function assertNoCredentials(res: ApiResponse): void {
  assertProblem(res, 401);
  assert.equal(res.headers.get("www-authenticate"), CHALLENGE);
}

/** 401 with the invalid_token challenge; the description is safe to show and matches `about`. */
function assertInvalidToken(res: ApiResponse, about?: RegExp): void {
  assertProblem(res, 401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  const match = INVALID_TOKEN.exec(challenge);
  assert.ok(match, `WWW-Authenticate was "${challenge}"`);
  const description = match[1];
  if (about) assert.match(description, about);
  for (const leak of [TEST_SECRET, "TypeError", "Error:", "BEGIN", " at ", "file:", "jose"]) {
    assert.ok(!description.includes(leak), `description leaks "${leak}": ${description}`);
    assert.ok(!res.text.includes(leak), `body leaks "${leak}": ${res.text}`);
  }
}

/** 403 with the insufficient_scope challenge naming `scope`. */
function assertInsufficientScope(res: ApiResponse, scope: string): void {
  assertProblem(res, 403);
  assert.equal(
    res.headers.get("www-authenticate"),
    `${CHALLENGE}, error="insufficient_scope", scope="${scope}"`,
  );
}

const now = () => Math.floor(Date.now() / 1000);
const b64url = (text: string) =>
  btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

Deno.test("an HS256 server with issuer and audience turns away every token attack", async (t) => {
  await using server = await startServer({
    env: { JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
  });
  const token = (options: TokenOptions = {}) =>
    makeToken({ ...options, extraClaims: { iss: ISSUER, aud: AUDIENCE, ...options.extraClaims } });
  const anonymous = new ApiClient(server.url, null);
  const bearer = (value: string) => ({ token: null, headers: { authorization: value } });
  const writer = new ApiClient(server.url, await token());
  const customer = await writer.create(newCustomer());
  const one = `/api/customers/${customer.id}`;

  await t.step(
    "a valid token with both scopes reads and writes (so the 401s below mean something)",
    async () => {
      assert.equal((await writer.get("/api/customers")).status, 200);
      assert.equal((await writer.get(one)).status, 200);
    },
  );

  await t.step("no Authorization header answers 401 with the plain challenge", async () => {
    assertNoCredentials(await anonymous.get("/api/customers"));
    assertNoCredentials(await anonymous.get(one));
    assertNoCredentials(await anonymous.post("/api/customers", { json: newCustomer() }));
    assertNoCredentials(await anonymous.delete(one));
    const head = await anonymous.head(one);
    assert.equal(head.status, 401);
    assert.equal(head.headers.get("www-authenticate"), CHALLENGE);
  });

  await t.step("the Basic scheme answers 401 with the plain challenge", async () => {
    assertNoCredentials(await anonymous.get("/api/customers", bearer("Basic YWxpY2U6c2VjcmV0")));
    assertNoCredentials(await anonymous.get("/api/customers", bearer(`Basic ${await token()}`)));
  });

  await t.step("an empty Bearer answers 401", async () => {
    for (const value of ["Bearer ", "Bearer", "bearer   "]) {
      const res = await anonymous.get("/api/customers", bearer(value));
      if (EMPTY_BEARER_IS_INVALID_TOKEN) assertInvalidToken(res);
      else assertNoCredentials(res);
    }
  });

  await t.step(
    "a valid token only in the query string, a cookie or a form body answers 401 with the plain challenge",
    async () => {
      const valid = await token();
      assertNoCredentials(await anonymous.get(`/api/customers?access_token=${valid}`));
      assertNoCredentials(await anonymous.get(`${one}?access_token=${valid}`));
      assertNoCredentials(
        await anonymous.get("/api/customers", { headers: { cookie: `access_token=${valid}` } }),
      );
      assertNoCredentials(
        await anonymous.post(`/api/customers?access_token=${valid}`, {
          body: `access_token=${valid}`,
          contentType: "application/x-www-form-urlencoded",
        }),
      );
    },
  );

  await t.step("the Bearer scheme name is case-insensitive", async () => {
    const res = await anonymous.get("/api/customers", bearer(`bEARER ${await token()}`));
    assert.equal(res.status, 200, res.text);
  });

  await t.step("an unsigned alg none token answers 401 invalid_token", async () => {
    const unsigned = makeUnsignedToken();
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${unsigned}`)));
    const [, payload] = (await token()).split(".");
    for (const alg of ["none", "None", "NONE", "nOnE"]) {
      const forged = `${b64url(JSON.stringify({ alg, typ: "JWT" }))}.${payload}.`;
      assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${forged}`)));
    }
  });

  await t.step("a token signed with another secret answers 401 invalid_token", async () => {
    const forged = await token({ secret: "attacker-secret-0123456789-abcdefghijklmnopqrstu" });
    assertInvalidToken(
      await anonymous.get("/api/customers", bearer(`Bearer ${forged}`)),
      /signature/i,
    );
  });

  await t.step("a token with a tampered payload answers 401 invalid_token", async () => {
    const [header, , signature] = (await token({ scope: "customers:read" })).split(".");
    const payload = b64url(JSON.stringify({
      sub: "mallory",
      scope: "customers:read customers:write",
      iss: ISSUER,
      aud: AUDIENCE,
      exp: now() + 3600,
    }));
    const forged = `${header}.${payload}.${signature}`;
    assertInvalidToken(await anonymous.delete(one, bearer(`Bearer ${forged}`)));
  });

  await t.step(
    "an HS512 or HS384 token signed with the right secret answers 401 invalid_token",
    async () => {
      for (const alg of ["HS384", "HS512"]) {
        const forged = await new SignJWT({ scope: "customers:read", iss: ISSUER, aud: AUDIENCE })
          .setProtectedHeader({ alg })
          .setExpirationTime(now() + 3600)
          .sign(new TextEncoder().encode(TEST_SECRET));
        assertInvalidToken(
          await anonymous.get("/api/customers", bearer(`Bearer ${forged}`)),
          /algorithm/i,
        );
      }
    },
  );

  await t.step("an expired token answers 401 invalid_token saying so", async () => {
    const expired = await token({ ttlSeconds: -120 });
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${expired}`)), /exp/i);
  });

  await t.step("a token whose nbf is 2 minutes ahead answers 401 invalid_token", async () => {
    const early = await token({ extraClaims: { nbf: now() + 120 } });
    assertInvalidToken(
      await anonymous.get("/api/customers", bearer(`Bearer ${early}`)),
      /not valid yet|nbf/i,
    );
  });

  await t.step("a token without exp answers 401 invalid_token", async () => {
    const forever = await token({ omitExp: true });
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${forever}`)), /exp/);
  });

  await t.step("a token from another issuer, or none, answers 401 invalid_token", async () => {
    const other = await token({ extraClaims: { iss: "https://evil.example.test/" } });
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${other}`)), /iss/);
    const none = await makeToken({ extraClaims: { aud: AUDIENCE } });
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${none}`)), /iss/);
  });

  await t.step("a token for another audience, or none, answers 401 invalid_token", async () => {
    const other = await token({ extraClaims: { aud: ["billing-api", "crm"] } });
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${other}`)), /aud/);
    const none = await makeToken({ extraClaims: { iss: ISSUER } });
    assertInvalidToken(await anonymous.get("/api/customers", bearer(`Bearer ${none}`)), /aud/);
    const among = await token({ extraClaims: { aud: ["billing-api", AUDIENCE] } });
    assert.equal((await anonymous.get("/api/customers", bearer(`Bearer ${among}`))).status, 200);
  });

  await t.step("malformed tokens and broken base64 answer 401 invalid_token", async () => {
    const [header, payload, signature] = (await token()).split(".");
    const malformed = [
      "not-a-jwt",
      "a.b.c",
      "a.b",
      "....",
      `${header}.${payload}`,
      `${header}.${payload}.${signature}.${signature}`,
      `${header}~~.${payload}.${signature}`,
      `${header}.${payload.slice(0, -3)}+/+.${signature}`,
      `${header}.${b64url("{not json")}.${signature}`,
      `${b64url("[]")}.${payload}.${signature}`,
      `${b64url('{"alg":"HS256","crit":["exp"]}')}.${payload}.${signature}`,
      `${header}.${b64url('"a string"')}.${signature}`,
      `${header}.${payload}.${signature}==`,
      "Bearer <script>alert(1)</script>",
      "eyJ\u00e9.x.y",
      `${header}.${payload}.${signature}, Bearer ${header}.${payload}.${signature}`,
    ];
    for (const value of malformed) {
      const res = await anonymous.get("/api/customers", bearer(`Bearer ${value}`));
      assertInvalidToken(res);
    }
  });

  await t.step("a 10 KiB token answers 401 invalid_token even with a valid signature", async () => {
    const huge = await token({ extraClaims: { padding: "x".repeat(10 * 1024) } });
    assert.ok(huge.length > 10 * 1024);
    assertInvalidToken(
      await anonymous.get("/api/customers", bearer(`Bearer ${huge}`)),
      /large|size|long/i,
    );
  });

  await t.step(
    "a read-only token doing POST, PUT, PATCH or DELETE answers 403 naming customers:write and changes nothing",
    async () => {
      const reader = new ApiClient(server.url, await token({ scope: "customers:read" }));
      const put = { name: "Mallory", email: customer.email };
      assertInsufficientScope(
        await reader.post("/api/customers", { json: newCustomer() }),
        "customers:write",
      );
      assertInsufficientScope(await reader.put(one, { json: put }), "customers:write");
      assertInsufficientScope(
        await reader.patch(one, {
          json: { name: "Mallory" },
          contentType: "application/merge-patch+json",
        }),
        "customers:write",
      );
      assertInsufficientScope(await reader.delete(one), "customers:write");
      const after = await reader.get(one);
      assert.equal(after.status, 200);
      assert.deepEqual(after.body, customer);
      assert.equal((await reader.get("/api/customers")).body.data.length, 1);
    },
  );

  await t.step(
    "a write-only token doing GET or HEAD answers 403 naming customers:read",
    async () => {
      const onlyWrite = new ApiClient(server.url, await token({ scope: "customers:write" }));
      assertInsufficientScope(await onlyWrite.get("/api/customers"), "customers:read");
      assertInsufficientScope(await onlyWrite.get(one), "customers:read");
      const head = await onlyWrite.head(one);
      assert.equal(head.status, 403);
      assert.equal(
        head.headers.get("www-authenticate"),
        `${CHALLENGE}, error="insufficient_scope", scope="customers:read"`,
      );
    },
  );

  await t.step("a token with no scope at all answers 403 on read and on write", async () => {
    const noScope = new ApiClient(server.url, await token({ scope: null }));
    assertInsufficientScope(await noScope.get(one), "customers:read");
    assertInsufficientScope(await noScope.delete(one), "customers:write");
  });

  await t.step("scopes only look alike are not scopes", async () => {
    const lookalike = new ApiClient(
      server.url,
      await token({ scope: "customers:read:all Customers:Read customers:write-ish customers" }),
    );
    assertInsufficientScope(await lookalike.get(one), "customers:read");
    assertInsufficientScope(await lookalike.delete(one), "customers:write");
  });

  await t.step("scopes in an scp array or an scp string are accepted", async () => {
    const array = new ApiClient(
      server.url,
      await token({ scope: null, extraClaims: { scp: ["customers:read", "customers:write"] } }),
    );
    assert.equal((await array.get(one)).status, 200);
    const created = await array.post("/api/customers", { json: newCustomer() });
    assert.equal(created.status, 201, created.text);
    const readOnly = new ApiClient(
      server.url,
      await token({ scope: null, extraClaims: { scp: "customers:read" } }),
    );
    assert.equal((await readOnly.get(one)).status, 200);
    assertInsufficientScope(await readOnly.delete(one), "customers:write");
  });

  await t.step("no attack made the server log an unexpected error", async () => {
    const { stdout } = await server.stop();
    assert.ok(!stdout.includes('"level":"error"'), stdout);
  });
});

Deno.test("a JWKS_FILE server refuses HMAC confusion, unknown kids and keys named in headers", async (t) => {
  const idp = await newSigningKey("RS256", "idp-rsa-1");
  const attackerKey = await newSigningKey("RS256", "attacker-1");
  const dir = await Deno.makeTempDir({ prefix: "customer-api-jwks-" });
  const jwksFile = `${dir}/jwks.json`;
  await Deno.writeTextFile(jwksFile, JSON.stringify(keySetOf(idp)));
  await using attacker = serveKeySet(keySetOf(attackerKey));
  await using server = await startServer({ env: { JWT_SECRET: "", JWKS_FILE: jwksFile } });
  const api = new ApiClient(server.url, null);
  const get = (jwt: string) => api.get("/api/customers", { token: jwt });

  try {
    await t.step("an RS256 token from the key set's key is accepted", async () => {
      assert.equal((await get(await signWith(idp))).status, 200);
    });

    await t.step(
      "an HS256 token using the RSA public key (PEM or JWK bytes) as secret answers 401",
      async () => {
        const pem = await exportSPKI(
          await crypto.subtle.importKey(
            "jwk",
            idp.publicJwk as JsonWebKey,
            { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
            true,
            ["verify"],
          ),
        );
        const secrets = [
          pem,
          pem.trim(),
          JSON.stringify(idp.publicJwk),
          JSON.stringify(keySetOf(idp)),
          idp.publicJwk.n!,
        ];
        for (const secret of secrets) {
          for (const header of [{ alg: "HS256" }, { alg: "HS256", kid: idp.kid }]) {
            const forged = await new SignJWT({ sub: "mallory", scope: "customers:read" })
              .setProtectedHeader(header)
              .setExpirationTime(now() + 3600)
              .sign(new TextEncoder().encode(secret));
            assertInvalidToken(await get(forged));
          }
        }
      },
    );

    await t.step("an alg none token naming the real kid answers 401", async () => {
      const [, payload] = (await signWith(idp)).split(".");
      const forged = `${b64url(JSON.stringify({ alg: "none", kid: idp.kid }))}.${payload}.`;
      assertInvalidToken(await get(forged));
    });

    await t.step("a token with an unknown kid answers 401, signed by anyone", async () => {
      assertInvalidToken(await get(await signWith(attackerKey)));
      assertInvalidToken(await get(await signWith(idp, { header: { kid: "idp-rsa-2" } })));
    });

    await t.step("a token signed by another key under the real kid answers 401", async () => {
      assertInvalidToken(await get(await signWith(attackerKey, { header: { kid: idp.kid } })));
    });

    await t.step(
      "a jku, x5u or embedded jwk header answers 401 and the server never fetches it",
      async () => {
        const headers = [
          { jku: attacker.url },
          { jku: attacker.url, kid: idp.kid },
          { x5u: attacker.url },
          { jwk: attackerKey.publicJwk },
          { jwk: attackerKey.publicJwk, kid: idp.kid },
          { jku: attacker.url, jwk: attackerKey.publicJwk, x5u: attacker.url },
        ];
        for (const header of headers) {
          assertInvalidToken(await get(await signWith(attackerKey, { header })));
        }
        assert.equal(attacker.hits, 0, "the server fetched a key from a token header");
      },
    );

    await t.step("an expired RS256 token from the right key answers 401", async () => {
      assertInvalidToken(await get(await signWith(idp, { ttlSeconds: -120 })), /exp/i);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
