import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { createAuthenticator } from "../../src/auth/authenticator.ts";
import type { Principal } from "../../src/http/api_module.ts";
import { InvalidTokenError } from "../../src/http/errors.ts";
import { SECRET_ALGORITHMS } from "../../src/auth/key_sources.ts";
import { TokenCache } from "../../src/auth/token_cache.ts";

const encoder = new TextEncoder();
const SECRET = encoder.encode("auth-cache-test-secret-0123456789-abcdefghij");
const ROTATED = encoder.encode("auth-cache-rotated-secret-0123456789-abcdefg");

/**
 * A verification key the test can rotate, counting every signature check, so a test can tell a
 * cache hit (no check) from a fresh verification.
 */
function rotatingKey() {
  const key: { secret: Uint8Array; verifications: number; getKey: () => Uint8Array } = {
    secret: SECRET,
    verifications: 0,
    getKey: () => {
      key.verifications++;
      return key.secret;
    },
  };
  return key;
}

function setup(cache = new TokenCache<Principal>()) {
  const key = rotatingKey();
  // Promises every time (a cache hit answers synchronously), for assert.rejects.
  const cachedSync = createAuthenticator({ key: key.getKey, algorithms: SECRET_ALGORITHMS, cache });
  const freshSync = createAuthenticator({ key: key.getKey, algorithms: SECRET_ALGORITHMS });
  const cached = (request: Request) => Promise.resolve(cachedSync(request));
  const fresh = (request: Request) => Promise.resolve(freshSync(request));
  return { key, cache, cached, fresh };
}

/** An HS256 token signed with SECRET expiring at `exp` (seconds since the epoch). */
function tokenExpiringAt(exp: number, scope = "customers:read"): Promise<string> {
  return new SignJWT({ sub: "alice", scope, jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(SECRET);
}

function request(token: string): Request {
  return new Request("http://x/api/customers", { headers: { authorization: `Bearer ${token}` } });
}

async function outcome(authenticate: (r: Request) => Promise<Principal>, token: string) {
  try {
    return { ok: true, sub: (await authenticate(request(token))).sub };
  } catch (error) {
    assert.ok(error instanceof InvalidTokenError, `unexpected ${error}`);
    return { ok: false };
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("a token verified once is answered from the cache without another signature check", async () => {
  const { key, cached } = setup();
  const token = await tokenExpiringAt(nowSeconds() + 3600);
  for (let i = 0; i < 5; i++) {
    const principal = await cached(request(token));
    assert.equal(principal.sub, "alice");
    assert.deepEqual([...principal.scopes], ["customers:read"]);
  }
  assert.equal(key.verifications, 1);
});

Deno.test("a refused token is never cached: every attempt is verified and refused", async () => {
  const { key, cache, cached } = setup();
  const token = await tokenExpiringAt(nowSeconds() - 3600);
  for (let i = 0; i < 3; i++) {
    await assert.rejects(cached(request(token)), InvalidTokenError);
  }
  assert.equal(key.verifications, 3);
  assert.equal(cache.size, 0);
});

Deno.test("a short-lived token leaves the cache at its exp, so the cache accepts nothing the verifier refuses", async () => {
  const { key, cached, fresh } = setup();
  const exp = nowSeconds() + 2;
  const token = await tokenExpiringAt(exp);
  assert.deepEqual(await outcome(cached, token), { ok: true, sub: "alice" });
  assert.equal(key.verifications, 1);

  // Rotate the key: from now on fresh verification refuses this token, so any acceptance
  // of it can only come from the cache.
  key.secret = ROTATED;
  assert.deepEqual(await outcome(fresh, token), { ok: false });
  if (Date.now() < exp * 1000 - 100) {
    assert.deepEqual(await outcome(cached, token), { ok: true, sub: "alice" }, "cache not used");
  }

  // From exp on (and before the verifier's 30 s tolerance would matter), step by step,
  // the cached authenticator must answer exactly what fresh verification answers.
  await sleep(exp * 1000 - Date.now());
  const deadline = exp * 1000 + 1_000;
  let checks = 0;
  while (Date.now() < deadline) {
    const before: number = key.verifications;
    assert.deepEqual(await outcome(cached, token), { ok: false }, `accepted at ${Date.now()}`);
    assert.equal(key.verifications, before + 1, "answered without verification after exp");
    assert.deepEqual(await outcome(fresh, token), { ok: false });
    checks++;
    await sleep(100);
  }
  assert.ok(checks >= 5, `only ${checks} checks after exp`);
});

Deno.test("a token within the verifier's 30 s tolerance after exp is re-verified every time, never cached", async () => {
  const { key, cache, cached } = setup();
  const token = await tokenExpiringAt(nowSeconds() - 5);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(await outcome(cached, token), { ok: true, sub: "alice" });
  }
  assert.equal(key.verifications, 3);
  assert.equal(cache.size, 0);
  key.secret = ROTATED;
  assert.deepEqual(await outcome(cached, token), { ok: false });
});

Deno.test("a long-lived token leaves the cache after maxAge and is then verified afresh", async () => {
  const { key, cached } = setup(new TokenCache<Principal>(100, 300));
  const token = await tokenExpiringAt(nowSeconds() + 3600);
  assert.deepEqual(await outcome(cached, token), { ok: true, sub: "alice" });
  key.secret = ROTATED;
  await sleep(350);
  assert.deepEqual(await outcome(cached, token), { ok: false });
  assert.equal(key.verifications, 2);
});

Deno.test("the cache keeps scope checks: a cached read-only token still lacks customers:write", async () => {
  const { key, cached } = setup();
  const token = await tokenExpiringAt(nowSeconds() + 3600);
  await cached(request(token));
  const principal = await cached(request(token));
  assert.equal(key.verifications, 1);
  assert.equal(principal.scopes.has("customers:write"), false);
});
