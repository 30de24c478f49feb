/** Contract §1–§2 key sources against the real server: remote and file key sets, bad configs. */
import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { ApiClient, type ApiResponse, assertProblem } from "../support/api.ts";
import {
  keySetOf,
  newSigningKey,
  serveKeySet,
  type SigningKey,
  signWith,
} from "../support/jwks.ts";
import { type ExitResult, runUntilExit, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const COOLDOWN_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits out the server's JWKS cooldown, with a margin for scheduling. */
const afterCooldown = () => sleep(COOLDOWN_MS + 150);

function assertInvalidToken(res: ApiResponse): void {
  assertProblem(res, 401);
  assert.match(
    res.headers.get("www-authenticate") ?? "",
    /^Bearer realm="customers", error="invalid_token", error_description="[^"]+"$/,
  );
}

/** 503 problem+json: the token cannot be checked now, which is neither its fault nor a crash. */
function assertKeysUnavailable(res: ApiResponse): void {
  assertProblem(res, 503);
  assert.match(res.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/, "Retry-After");
  assert.equal(res.headers.get("www-authenticate"), null, "a 503 blames the token");
}

Deno.test("a JWKS_URL server follows key rotation, rate-limits refetches and answers 503 while the key set is down", async (t) => {
  const [keyA, keyB, stormKey, keyD, attackerKey] = await Promise.all([
    newSigningKey("RS256", "key-a"),
    newSigningKey("ES256", "key-b"),
    newSigningKey("ES256", "storm"),
    newSigningKey("RS256", "key-d"),
    newSigningKey("RS256", "attacker"),
  ]);
  await using idp = serveKeySet(keySetOf(keyA));
  await using attacker = serveKeySet(keySetOf(attackerKey));
  await using server = await startServer({
    env: { JWT_SECRET: "", JWKS_URL: idp.url, JWKS_COOLDOWN_SECONDS: String(COOLDOWN_MS / 1000) },
  });
  const api = new ApiClient(server.url, null);
  const get = async (key: SigningKey, header?: Record<string, unknown>) =>
    await api.get("/api/customers", { token: await signWith(key, { header }) });
  let verifiedB = "";

  await t.step(
    "tokens from key A pass, with one fetch of the key set for all of them",
    async () => {
      assert.equal(idp.hits, 0, "fetched before any token arrived");
      for (let i = 0; i < 5; i++) assert.equal((await get(keyA)).status, 200);
      assert.equal(idp.hits, 1);
    },
  );

  await t.step(
    "after the set rotates to key B, tokens from key B pass once the cooldown is over",
    async () => {
      idp.serve(keySetOf(keyB));
      await afterCooldown();
      verifiedB = await signWith(keyB);
      const res = await api.get("/api/customers", { token: verifiedB });
      assert.equal(res.status, 200, res.text);
      assert.equal(idp.hits, 2);
      assert.equal((await get(keyB)).status, 200);
      assertInvalidToken(await get(keyA));
    },
  );

  await t.step(
    "storms of 50 concurrent unknown-kid tokens fetch at most once per cooldown",
    async () => {
      await afterCooldown();
      const before = idp.hits;
      const started = performance.now();
      let sent = 0;
      while (performance.now() - started < 2.2 * COOLDOWN_MS) {
        const storm = await Promise.all(
          Array.from({ length: 50 }, (_, i) => get(stormKey, { kid: `storm-${sent + i}` })),
        );
        for (const res of storm) assertInvalidToken(res);
        sent += storm.length;
      }
      const elapsed = performance.now() - started;
      const fetched = idp.hits - before;
      assert.ok(fetched >= 1, "an unknown kid after the cooldown did not refetch");
      assert.ok(
        fetched <= 1 + Math.floor(elapsed / COOLDOWN_MS),
        `${fetched} fetches for ${sent} unknown-kid tokens in ${Math.round(elapsed)} ms`,
      );
    },
  );

  await t.step("a jku header never makes the server fetch from the token's URL", async () => {
    assertInvalidToken(await get(attackerKey, { jku: attacker.url }));
    assertInvalidToken(await get(attackerKey, { jku: attacker.url, kid: keyB.kid }));
    assertInvalidToken(await get(attackerKey, { x5u: attacker.url }));
    assert.equal(attacker.hits, 0);
  });

  await t.step(
    "with the key set down, a token with a new kid answers 503 and known keys still pass",
    async () => {
      await idp.stop();
      await afterCooldown();
      assertKeysUnavailable(await get(keyD));
      assertKeysUnavailable(await get(stormKey, { kid: "never-seen" }));
      const cached = await api.get("/api/customers", { token: verifiedB });
      assert.equal(cached.status, 200, `already verified token: ${cached.text}`);
      assert.equal((await get(keyB)).status, 200, "a new token from a known key");
      await afterCooldown();
      assertKeysUnavailable(await get(keyD));
    },
  );

  await t.step("the outage is logged as a warning naming the URL, never with a token", async () => {
    const { stdout } = await server.stop();
    assert.match(stdout, /"level":"warn"[^\n]*JSON Web Key Set[^\n]*jwks\.json/);
    const [, , signature] = verifiedB.split(".");
    assert.ok(!stdout.includes(signature), "a token was logged");
  });
});

Deno.test("a JWKS_URL server started while the key set is unreachable answers 503 until it is back", async () => {
  const key = await newSigningKey("ES256", "late");
  const gone = serveKeySet(keySetOf(key));
  await gone.stop();
  await using server = await startServer({
    env: { JWT_SECRET: "", JWKS_URL: gone.url, JWKS_COOLDOWN_SECONDS: "1" },
  });
  const api = new ApiClient(server.url, null);
  assertKeysUnavailable(await api.get("/api/customers", { token: await signWith(key) }));
  assert.equal((await api.get("/healthz")).status, 200);

  await using back = serveKeySet(keySetOf(key), gone.port);
  await afterCooldown();
  const res = await api.get("/api/customers", { token: await signWith(key) });
  assert.equal(res.status, 200, res.text);
  assert.equal(back.hits, 1);
});

Deno.test("a JWKS_FILE server accepts ES256 and EdDSA keys and ignores private, symmetric and P-384 entries", async (t) => {
  const es = await newSigningKey("ES256", "es-1");
  const ed = await newSigningKey("EdDSA", "ed-1");
  const leaked = await newSigningKey("RS256", "leaked-private");
  const p384 = await generateKeyPair("ES384", { extractable: true });
  const octSecret = "a-symmetric-key-in-a-public-key-set-0123456789";
  const dir = await Deno.makeTempDir({ prefix: "customer-api-jwks-" });
  const jwksFile = `${dir}/jwks.json`;
  await Deno.writeTextFile(
    jwksFile,
    JSON.stringify({
      keys: [
        es.publicJwk,
        ed.publicJwk,
        leaked.privateJwk,
        { kty: "oct", kid: "oct-1", k: btoa(octSecret).replace(/=+$/, "") },
        { ...await exportJWK(p384.publicKey), kid: "p384-1" },
      ],
    }),
  );
  await using server = await startServer({ env: { JWT_SECRET: "", JWKS_FILE: jwksFile } });
  const api = new ApiClient(server.url, null);
  const get = (token: string) => api.get("/api/customers", { token });
  const now = Math.floor(Date.now() / 1000);

  try {
    await t.step("ES256 and EdDSA tokens from the set's keys pass", async () => {
      assert.equal((await get(await signWith(es))).status, 200);
      assert.equal((await get(await signWith(ed))).status, 200);
    });

    await t.step(
      "a token signed by a key published with its private part answers 401",
      async () => {
        assertInvalidToken(await get(await signWith(leaked)));
      },
    );

    await t.step(
      "an HS256 token signed with a symmetric key from the file answers 401",
      async () => {
        const forged = await new SignJWT({ scope: "customers:read" })
          .setProtectedHeader({ alg: "HS256", kid: "oct-1" })
          .setExpirationTime(now + 3600)
          .sign(new TextEncoder().encode(octSecret));
        assertInvalidToken(await get(forged));
      },
    );

    await t.step("an ES384 token from the P-384 key answers 401", async () => {
      const token = await new SignJWT({ scope: "customers:read" })
        .setProtectedHeader({ alg: "ES384", kid: "p384-1" })
        .setExpirationTime(now + 3600)
        .sign(p384.privateKey);
      assertInvalidToken(await get(token));
    });

    await t.step("a token whose kid names a key of another type answers 401", async () => {
      assertInvalidToken(await get(await signWith(es, { header: { kid: ed.kid } })));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a 32-byte JWT_SECRET is enough to start and verify tokens", async () => {
  const secret = "0123456789abcdef0123456789abcdef";
  await using server = await startServer({ env: { JWT_SECRET: secret } });
  const res = await new ApiClient(server.url, await makeToken({ secret })).get("/api/customers");
  assert.equal(res.status, 200, res.text);
});

/** The server exited non-zero on its own, quickly, saying why on stderr without a stack trace. */
function assertRefused(result: ExitResult, ...mentions: string[]): void {
  const output = `--- stderr ---\n${result.stderr}\n--- stdout ---\n${result.stdout}`;
  assert.notEqual(result.code, null, `still running after ${result.ms} ms\n${output}`);
  assert.notEqual(result.code, 0, output);
  assert.ok(!/"msg":"listening"/.test(result.stdout), `it listened\n${output}`);
  for (const mention of mentions) assert.ok(result.stderr.includes(mention), output);
  assert.ok(!/^\s+at /m.test(result.stderr), `stack trace on stderr\n${output}`);
}

Deno.test("the server refuses to start with a bad key source and says what to fix", async (t) => {
  const rsa = await newSigningKey("RS256", "rsa-1");
  const dir = await Deno.makeTempDir({ prefix: "customer-api-jwks-" });
  const file = async (name: string, body: unknown) => {
    const path = `${dir}/${name}`;
    await Deno.writeTextFile(path, typeof body === "string" ? body : JSON.stringify(body));
    return path;
  };
  const good = await file("good.json", keySetOf(rsa));
  const refuse = (env: Record<string, string>) => runUntilExit({ env }, 10_000);

  try {
    await t.step("a JWT_SECRET of 31 bytes", async () => {
      assertRefused(await refuse({ JWT_SECRET: "0123456789abcdef0123456789abcde" }), "JWT_SECRET");
    });

    await t.step("two or three key sources", async () => {
      assertRefused(await refuse({ JWKS_FILE: good }), "JWT_SECRET", "JWKS_FILE");
      assertRefused(
        await refuse({ JWT_SECRET: "", JWKS_FILE: good, JWKS_URL: "https://idp.example/jwks" }),
        "JWKS_FILE",
        "JWKS_URL",
      );
      assertRefused(
        await refuse({ JWKS_FILE: good, JWKS_URL: "https://idp.example/jwks" }),
        "JWT_SECRET",
        "JWKS_FILE",
        "JWKS_URL",
      );
    });

    await t.step("a JWKS_FILE that does not exist, is a directory or is not JSON", async () => {
      const missing = `${dir}/missing.json`;
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_FILE: missing }), "JWKS_FILE", missing);
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_FILE: dir }), "JWKS_FILE", dir);
      const broken = await file("broken.json", '{"keys": [');
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_FILE: broken }), "JWKS_FILE", broken);
    });

    await t.step("a JWKS_FILE holding only a private or a symmetric key", async () => {
      const privateOnly = await file("private.json", { keys: [rsa.privateJwk] });
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_FILE: privateOnly }), privateOnly);
      const symmetric = await file("oct.json", { keys: [{ kty: "oct", k: "c2VjcmV0" }] });
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_FILE: symmetric }), symmetric);
      const empty = await file("empty.json", { keys: [] });
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_FILE: empty }), empty);
    });

    await t.step("a JWKS_URL that is not an http(s) URL, or a bad cooldown", async () => {
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_URL: "not a url" }), "JWKS_URL");
      assertRefused(await refuse({ JWT_SECRET: "", JWKS_URL: "file:///etc/jwks" }), "JWKS_URL");
      assertRefused(
        await refuse({
          JWT_SECRET: "",
          JWKS_URL: "https://idp.example/jwks",
          JWKS_COOLDOWN_SECONDS: "soon",
        }),
        "JWKS_COOLDOWN_SECONDS",
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
