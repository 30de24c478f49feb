import assert from "node:assert/strict";
import { errors as joseErrors, type JWK, jwtVerify } from "jose";
import { KeySetUnavailableError } from "../../src/http/errors.ts";
import {
  KEY_SET_ALGORITHMS,
  RemoteKeySet,
  UnusableKeySetError,
  usableKeys,
} from "../../src/auth/key_sources.ts";
import { keySetOf, newSigningKey, serveKeySet, signWith } from "../support/jwks.ts";

const rsa = await newSigningKey("RS256", "rsa-1");
const ec = await newSigningKey("ES256", "ec-1");
const ed = await newSigningKey("EdDSA", "ed-1");
const other = await newSigningKey("ES256", "ec-2");

const kids = (jwks: { keys: JWK[] }) => jwks.keys.map((key) => key.kid);

Deno.test("usableKeys keeps public RSA, EC P-256 and Ed25519 signing keys", () => {
  const jwks = {
    keys: [rsa.publicJwk, ec.publicJwk, ed.publicJwk, { ...other.publicJwk, use: undefined }],
  };
  assert.deepEqual(kids(usableKeys(jwks, "test")), ["rsa-1", "ec-1", "ed-1", "ec-2"]);
});

Deno.test("usableKeys drops private, symmetric, wrong-curve, encryption and mislabelled keys", () => {
  const dropped: JWK[] = [
    { ...rsa.privateJwk, kid: "private-rsa" },
    { ...ec.privateJwk, kid: "private-ec" },
    { ...ed.privateJwk, kid: "private-ed" },
    { kty: "oct", k: "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA", kid: "oct" },
    { kty: "EC", crv: "P-384", x: "AA", y: "AA", kid: "p384" },
    { kty: "EC", crv: "secp256k1", x: "AA", y: "AA", kid: "k1" },
    { kty: "OKP", crv: "X25519", x: "AA", kid: "x25519" },
    { kty: "OKP", crv: "Ed448", x: "AA", kid: "ed448" },
    { ...rsa.publicJwk, use: "enc", kid: "enc" },
    { ...rsa.publicJwk, alg: "HS256", kid: "rsa-as-hs256" },
    { ...rsa.publicJwk, alg: "none", kid: "rsa-as-none" },
    { ...ec.publicJwk, alg: "RS256", kid: "ec-as-rs256" },
    { kty: "unknown", kid: "unknown" },
  ];
  const jwks = { keys: [...dropped, rsa.publicJwk] };
  assert.deepEqual(kids(usableKeys(jwks, "test")), ["rsa-1"]);
});

Deno.test("usableKeys ignores entries that are not objects", () => {
  const jwks = { keys: [null, 42, "key", [], rsa.publicJwk] };
  assert.deepEqual(kids(usableKeys(jwks, "test")), ["rsa-1"]);
});

Deno.test("a key set with no usable key throws UnusableKeySetError naming its source", () => {
  const cases: unknown[] = [
    { keys: [] },
    { keys: [rsa.privateJwk] },
    { keys: [{ kty: "oct", k: "c2VjcmV0" }] },
    { keys: [{ ...ec.publicJwk, use: "enc" }] },
  ];
  for (const jwks of cases) {
    assert.throws(
      () => usableKeys(jwks, "/etc/keys.json"),
      (error: unknown) =>
        error instanceof UnusableKeySetError && error.message.includes("/etc/keys.json"),
      JSON.stringify(jwks),
    );
  }
});

Deno.test("something that is not a key set throws UnusableKeySetError", () => {
  for (const jwks of [null, "keys", 42, [], {}, { keys: "none" }, { keys: {} }]) {
    assert.throws(() => usableKeys(jwks, "test"), UnusableKeySetError, JSON.stringify(jwks));
  }
});

/** A manual clock for the key set's cooldown, in milliseconds. */
function manualClock() {
  const clock = { now: 1_700_000_000_000, read: () => clock.now };
  return clock;
}

function verify(keySet: RemoteKeySet, token: string) {
  return jwtVerify(token, keySet.getKey, { algorithms: KEY_SET_ALGORITHMS });
}

Deno.test("a remote key set fetches nothing until first used, then once for many tokens", async () => {
  await using server = serveKeySet(keySetOf(rsa, ec));
  const keySet = new RemoteKeySet(new URL(server.url), { cooldownMs: 1_000 });
  assert.equal(keySet.fetches, 0);
  assert.equal(server.hits, 0);
  await Promise.all([verify(keySet, await signWith(rsa)), verify(keySet, await signWith(ec))]);
  for (let i = 0; i < 5; i++) await verify(keySet, await signWith(rsa));
  assert.equal(keySet.fetches, 1);
  assert.equal(server.hits, 1);
});

Deno.test("an unknown kid refetches at most once per cooldown", async () => {
  await using server = serveKeySet(keySetOf(rsa));
  const clock = manualClock();
  const keySet = new RemoteKeySet(new URL(server.url), { cooldownMs: 10_000, clock: clock.read });
  await verify(keySet, await signWith(rsa));
  assert.equal(keySet.fetches, 1);

  // Within the cooldown: refused as an unknown key, without asking the server again.
  clock.now += 9_999;
  for (let i = 0; i < 20; i++) {
    await assert.rejects(
      verify(keySet, await signWith(other, { header: { kid: `unknown-${i}` } })),
      joseErrors.JWKSNoMatchingKey,
    );
  }
  assert.equal(keySet.fetches, 1);
  assert.equal(server.hits, 1);

  // After the cooldown, a storm of unknown kids shares a single fetch.
  clock.now += 1;
  const storm = await Promise.allSettled(
    Array.from(
      { length: 30 },
      async (_, i) => verify(keySet, await signWith(other, { header: { kid: `storm-${i}` } })),
    ),
  );
  assert.ok(storm.every((result) => result.status === "rejected"));
  assert.equal(keySet.fetches, 2);
  assert.equal(server.hits, 2);
});

Deno.test("a rotated key set is picked up by the first token of the new kid after the cooldown", async () => {
  await using server = serveKeySet(keySetOf(rsa));
  const clock = manualClock();
  const keySet = new RemoteKeySet(new URL(server.url), { cooldownMs: 1_000, clock: clock.read });
  await verify(keySet, await signWith(rsa));
  server.serve(keySetOf(ec));
  clock.now += 1_000;
  const { payload } = await verify(keySet, await signWith(ec));
  assert.equal(payload.sub, "jwks-tester");
  assert.equal(keySet.fetches, 2);
  await assert.rejects(verify(keySet, await signWith(rsa)), joseErrors.JWKSNoMatchingKey);
});

Deno.test("keys older than maxAge are fetched again even without an unknown kid", async () => {
  await using server = serveKeySet(keySetOf(rsa));
  const clock = manualClock();
  const keySet = new RemoteKeySet(new URL(server.url), {
    cooldownMs: 1_000,
    maxAgeMs: 60_000,
    clock: clock.read,
  });
  await verify(keySet, await signWith(rsa));
  clock.now += 60_001;
  await verify(keySet, await signWith(rsa));
  assert.equal(keySet.fetches, 2);
});

Deno.test("a failed refetch keeps the old keys; an unknown kid then is KeySetUnavailableError", async () => {
  const server = serveKeySet(keySetOf(rsa));
  const clock = manualClock();
  const warnings: string[] = [];
  const keySet = new RemoteKeySet(new URL(server.url), {
    cooldownMs: 1_000,
    clock: clock.read,
    warn: (message) => warnings.push(message),
  });
  await verify(keySet, await signWith(rsa));
  await server.stop();

  clock.now += 1_000;
  await assert.rejects(verify(keySet, await signWith(ec)), KeySetUnavailableError);
  assert.equal(keySet.fetches, 2);
  assert.equal(warnings.length, 1);
  await verify(keySet, await signWith(rsa));
  // Within the cooldown after the failure: still unavailable, and no new attempt.
  await assert.rejects(verify(keySet, await signWith(other)), KeySetUnavailableError);
  assert.equal(keySet.fetches, 2);
});

Deno.test("an error status or an unusable key set keeps the old keys too", async () => {
  await using server = serveKeySet(keySetOf(rsa));
  const clock = manualClock();
  const keySet = new RemoteKeySet(new URL(server.url), { cooldownMs: 1_000, clock: clock.read });
  await verify(keySet, await signWith(rsa));

  server.failWith(500);
  clock.now += 1_000;
  await assert.rejects(verify(keySet, await signWith(ec)), KeySetUnavailableError);
  await verify(keySet, await signWith(rsa));

  server.serve({ keys: [ec.privateJwk] });
  clock.now += 1_000;
  await assert.rejects(verify(keySet, await signWith(ec)), KeySetUnavailableError);
  await verify(keySet, await signWith(rsa));
  assert.equal(keySet.fetches, 3);
});

Deno.test("with the key set unreachable from the start every token is KeySetUnavailableError", async () => {
  const server = serveKeySet(keySetOf(rsa));
  await server.stop();
  const keySet = new RemoteKeySet(new URL(server.url), { cooldownMs: 1_000 });
  await assert.rejects(verify(keySet, await signWith(rsa)), KeySetUnavailableError);
  await assert.rejects(verify(keySet, await signWith(rsa)), KeySetUnavailableError);
  assert.equal(keySet.fetches, 1, "retried within the cooldown");
});

Deno.test("a redirect from the key-set URL is not followed", async () => {
  await using attacker = serveKeySet(keySetOf(other));
  const redirecting = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.redirect(attacker.url, 302),
  );
  try {
    const url = new URL(`http://127.0.0.1:${redirecting.addr.port}/jwks.json`);
    const keySet = new RemoteKeySet(url, { cooldownMs: 1_000 });
    await assert.rejects(verify(keySet, await signWith(other)), KeySetUnavailableError);
    assert.equal(attacker.hits, 0);
  } finally {
    await redirecting.shutdown();
  }
});
