import assert from "node:assert/strict";
import { SignJWT } from "jose";
import {
  createAuthenticator,
  MAX_TOKEN_BYTES,
  requireScope,
} from "../../src/auth/authenticator.ts";
import type { Principal } from "../../src/http/api_module.ts";
import { READ_SCOPE, WRITE_SCOPE } from "../../src/auth/scopes.ts";
import {
  InsufficientScopeError,
  InvalidTokenError,
  MissingCredentialsError,
} from "../../src/http/errors.ts";
import { SECRET_ALGORITHMS } from "../../src/auth/key_sources.ts";

const SECRET = new TextEncoder().encode("unit-test-secret-0123456789-abcdefghijklmnop");
const OTHER_SECRET = new TextEncoder().encode("another-secret-0123456789-abcdefghijklmnopq");
const sync = createAuthenticator({ key: SECRET, algorithms: SECRET_ALGORITHMS });
/** The authenticator as a promise every time, for assert.rejects. */
const authenticate = (request: Request) => Promise.resolve(sync(request));

function now(): number {
  return Math.floor(Date.now() / 1000);
}

interface Mint {
  claims?: Record<string, unknown>;
  /** Seconds from now; null leaves exp out. */
  exp?: number | null;
  nbf?: number;
  secret?: Uint8Array;
  alg?: string;
}

function mint(options: Mint = {}): Promise<string> {
  const jwt = new SignJWT({ sub: "alice", scope: "customers:read", ...options.claims })
    .setProtectedHeader({ alg: options.alg ?? "HS256" })
    .setIssuedAt();
  const exp = options.exp === undefined ? 3600 : options.exp;
  if (exp !== null) jwt.setExpirationTime(now() + exp);
  if (options.nbf !== undefined) jwt.setNotBefore(now() + options.nbf);
  return jwt.sign(options.secret ?? SECRET);
}

function withAuthorization(value: string | null, url = "http://x/api/customers"): Request {
  const headers = new Headers();
  if (value !== null) headers.set("authorization", value);
  return new Request(url, { headers });
}

function bearer(token: string): Request {
  return withAuthorization(`Bearer ${token}`);
}

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Asserts that the request is refused as an invalid token with this exact description. */
async function assertInvalid(
  auth: (request: Request) => Principal | Promise<Principal>,
  request: Request,
  message: string,
): Promise<void> {
  await assert.rejects(Promise.resolve(auth(request)), (error: unknown) => {
    assert.ok(error instanceof InvalidTokenError, `got ${error}`);
    assert.equal(error.message, message);
    return true;
  });
}

Deno.test("a valid HS256 token yields its sub and the scopes of its scope claim", async () => {
  const token = await mint({ claims: { scope: "customers:read customers:write" } });
  const principal = await authenticate(bearer(token));
  assert.equal(principal.sub, "alice");
  assert.deepEqual([...principal.scopes], [READ_SCOPE, WRITE_SCOPE]);
});

Deno.test("extra spaces in the scope claim do not create empty scopes", async () => {
  const token = await mint({ claims: { scope: "  customers:read   customers:write " } });
  assert.deepEqual([...(await authenticate(bearer(token))).scopes], [READ_SCOPE, WRITE_SCOPE]);
});

Deno.test("scopes come from an scp string", async () => {
  const token = await mint({ claims: { scope: undefined, scp: "customers:write" } });
  assert.deepEqual([...(await authenticate(bearer(token))).scopes], [WRITE_SCOPE]);
});

Deno.test("scopes come from an scp array, ignoring entries that are not strings", async () => {
  const token = await mint({ claims: { scope: undefined, scp: ["customers:read", 7, null] } });
  assert.deepEqual([...(await authenticate(bearer(token))).scopes], [READ_SCOPE]);
});

Deno.test("scopes of scope and scp are united", async () => {
  const token = await mint({ claims: { scope: "customers:read", scp: ["customers:write"] } });
  assert.deepEqual([...(await authenticate(bearer(token))).scopes], [READ_SCOPE, WRITE_SCOPE]);
});

Deno.test("a token without scope claims is valid but has no scopes", async () => {
  const token = await mint({ claims: { scope: undefined } });
  assert.equal((await authenticate(bearer(token))).scopes.size, 0);
});

Deno.test("requireScope passes with the scope and throws InsufficientScopeError without it", async () => {
  const principal = await authenticate(bearer(await mint()));
  requireScope(principal, READ_SCOPE);
  assert.throws(() => requireScope(principal, WRITE_SCOPE), (error: unknown) => {
    assert.ok(error instanceof InsufficientScopeError);
    assert.equal(error.scope, "customers:write");
    return true;
  });
});

Deno.test("a token without exp is refused as invalid", async () => {
  await assertInvalid(
    authenticate,
    bearer(await mint({ exp: null })),
    "The token has no valid exp claim",
  );
});

Deno.test("a token whose exp is not a number is refused as invalid", async () => {
  const token = await mint({ exp: null, claims: { exp: "tomorrow" } });
  await assertInvalid(authenticate, bearer(token), "The token has no valid exp claim");
});

Deno.test("a token expired beyond the 30 s tolerance is refused", async () => {
  await assertInvalid(authenticate, bearer(await mint({ exp: -45 })), "The token has expired");
  await assertInvalid(authenticate, bearer(await mint({ exp: -3600 })), "The token has expired");
});

Deno.test("a token expired within the 30 s tolerance is accepted", async () => {
  const principal = await authenticate(bearer(await mint({ exp: -15 })));
  assert.equal(principal.sub, "alice");
});

Deno.test("a token whose nbf is beyond the tolerance in the future is refused", async () => {
  await assertInvalid(authenticate, bearer(await mint({ nbf: 120 })), "The token is not valid yet");
});

Deno.test("a token whose nbf is within the tolerance is accepted", async () => {
  assert.equal((await authenticate(bearer(await mint({ nbf: 10 })))).sub, "alice");
});

Deno.test("a token signed with another secret is refused", async () => {
  await assertInvalid(
    authenticate,
    bearer(await mint({ secret: OTHER_SECRET })),
    "The token's signature is invalid",
  );
});

Deno.test("a token with a tampered payload is refused", async () => {
  const [header, , signature] = (await mint()).split(".");
  const payload = b64url({ sub: "mallory", scope: "customers:write", exp: now() + 3600 });
  await assertInvalid(
    authenticate,
    bearer(`${header}.${payload}.${signature}`),
    "The token's signature is invalid",
  );
});

Deno.test("an unsigned alg none token is refused", async () => {
  const header = b64url({ alg: "none", typ: "JWT" });
  const payload = b64url({ sub: "mallory", scope: "customers:write", exp: now() + 3600 });
  await assertInvalid(
    authenticate,
    bearer(`${header}.${payload}.`),
    "The token's algorithm is not allowed",
  );
});

Deno.test("a token signed with HS512 by the same secret is refused (HS256 only)", async () => {
  await assertInvalid(
    authenticate,
    bearer(await mint({ alg: "HS512" })),
    "The token's algorithm is not allowed",
  );
});

Deno.test("with an issuer configured, a token from another or no issuer is refused", async () => {
  const auth = createAuthenticator({
    key: SECRET,
    algorithms: SECRET_ALGORITHMS,
    issuer: "https://id.example",
  });
  await assertInvalid(
    auth,
    bearer(await mint({ claims: { iss: "https://evil.example" } })),
    `The token's "iss" claim is not accepted`,
  );
  await assertInvalid(auth, bearer(await mint()), `The token's "iss" claim is not accepted`);
  const ok = await auth(bearer(await mint({ claims: { iss: "https://id.example" } })));
  assert.equal(ok.sub, "alice");
});

Deno.test("with an audience configured, aud must contain it", async () => {
  const auth = createAuthenticator({
    key: SECRET,
    algorithms: SECRET_ALGORITHMS,
    audience: "customer-api",
  });
  await assertInvalid(
    auth,
    bearer(await mint({ claims: { aud: "billing" } })),
    `The token's "aud" claim is not accepted`,
  );
  await assertInvalid(auth, bearer(await mint()), `The token's "aud" claim is not accepted`);
  assert.equal((await auth(bearer(await mint({ claims: { aud: "customer-api" } })))).sub, "alice");
  const listed = await mint({ claims: { aud: ["billing", "customer-api"] } });
  assert.equal((await auth(bearer(listed))).sub, "alice");
});

Deno.test("without issuer and audience configured, any iss and aud are accepted", async () => {
  const token = await mint({ claims: { iss: "https://anyone.example", aud: "anything" } });
  assert.equal((await authenticate(bearer(token))).sub, "alice");
});

Deno.test("no Authorization header is MissingCredentialsError", async () => {
  await assert.rejects(authenticate(withAuthorization(null)), MissingCredentialsError);
});

Deno.test("a token in the query string is never accepted", async () => {
  const url = `http://x/api/customers?access_token=${await mint()}`;
  await assert.rejects(authenticate(withAuthorization(null, url)), MissingCredentialsError);
});

Deno.test("a Basic Authorization header is MissingCredentialsError, not an invalid token", async () => {
  await assert.rejects(
    authenticate(withAuthorization(`Basic ${btoa("alice:password")}`)),
    MissingCredentialsError,
  );
});

Deno.test("the Bearer scheme is case-insensitive", async () => {
  const token = await mint();
  for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
    assert.equal((await authenticate(withAuthorization(`${scheme} ${token}`))).sub, "alice");
  }
});

Deno.test("a token of exactly 8 KiB is accepted and one byte more is refused as too large", async () => {
  assert.equal(MAX_TOKEN_BYTES, 8192);
  const atLimit = await mintOfLength(MAX_TOKEN_BYTES);
  assert.equal(atLimit.length, 8192);
  assert.equal((await authenticate(bearer(atLimit))).sub, "alice");
  const over = await mintOfLength(MAX_TOKEN_BYTES + 1);
  assert.equal(over.length, 8193);
  await assertInvalid(authenticate, bearer(over), "The token is too large");
});

Deno.test("a huge Authorization header is refused as too large without parsing", async () => {
  await assertInvalid(
    authenticate,
    withAuthorization(`Bearer ${"a".repeat(100_000)}`),
    "The token is too large",
  );
});

Deno.test("Bearer without a well-formed token is an invalid token", async () => {
  for (const value of ["Bearer", "Bearer a b", "Bearer <script>", "Bearer a, Bearer b"]) {
    await assertInvalid(authenticate, withAuthorization(value), "The bearer token is malformed");
  }
});

Deno.test("garbage tokens are always InvalidTokenError, never another error", async () => {
  const validSig = (await mint()).split(".")[2];
  const garbage = [
    "abc",
    "a.b.c",
    "a.b",
    "a.b.c.d.e",
    "...",
    "e30.e30.",
    `${b64url({ alg: "HS256" })}.${b64url({ exp: "x" })}.${validSig}`,
    `${b64url({ alg: "HS256", crit: ["exp"] })}.${b64url({ exp: 1 })}.x`,
    `${b64url({ alg: "HS256", b64: false, crit: ["b64"] })}.e30.x`,
    `${b64url([1])}.${b64url({})}.x`,
    `${btoa("not json")}.e30.x`,
    `${b64url({ alg: "HS256" })}.${btoa("not json")}.${validSig}`,
    `${b64url({ alg: "HS256" })}.${b64url([1, 2])}.${validSig}`,
    "====.====.====",
    "-_-_.-_-_.-_-_",
  ];
  for (const token of garbage) {
    await assert.rejects(authenticate(bearer(token)), InvalidTokenError, token);
  }
});

Deno.test("a garbage token whose payload is signed still is refused as InvalidTokenError", async () => {
  // Correctly signed but the payload is not a JSON object: jose must not surface a TypeError.
  const header = b64url({ alg: "HS256" });
  const payload = btoa("[1,2,3]").replace(/=+$/, "");
  const token = await signRaw(`${header}.${payload}`);
  await assertInvalid(authenticate, bearer(token), "The token is malformed or cannot be verified");
});

Deno.test("an invalid token description never contains the secret", async () => {
  const secretText = new TextDecoder().decode(SECRET);
  for (const token of [await mint({ secret: OTHER_SECRET }), await mint({ exp: -100 }), "x.y.z"]) {
    await assert.rejects(authenticate(bearer(token)), (error: unknown) => {
      assert.ok(error instanceof InvalidTokenError);
      assert.equal(error.message.includes(secretText), false);
      return true;
    });
  }
});

/** A valid token padded (via an extra claim) to exactly `length` characters. */
async function mintOfLength(length: number): Promise<string> {
  const exp = now() + 3600;
  const base = `${b64url({ alg: "HS256" })}.`;
  const make = (pad: number) =>
    signRaw(
      `${base}${b64url({ sub: "alice", scope: "customers:read", exp, pad: "x".repeat(pad) })}`,
    );
  // Each padding byte adds 4/3 characters: start just below the target and walk up.
  const start = Math.max(0, Math.floor(((length - (await make(0)).length) * 3) / 4) - 4);
  for (let pad = start; pad < start + 12; pad++) {
    const token = await make(pad);
    if (token.length === length) return token;
  }
  throw new Error(`No token of length ${length}`);
}

async function signRaw(signingInput: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    SECRET,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(signingInput));
  const b64 = btoa(String.fromCharCode(...new Uint8Array(signature)));
  return `${signingInput}.${b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}
