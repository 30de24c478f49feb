import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { createAuthenticator } from "../../src/auth/authenticator.ts";
import { SECRET_ALGORITHMS } from "../../src/auth/key_sources.ts";
import { TokenCache } from "../../src/auth/token_cache.ts";
import { tracedTokenCheck } from "../../src/auth/traced_token_check.ts";
import type { Principal } from "../../src/http/api_module.ts";
import { RecordedSpans } from "../support/recorded_spans.ts";

const SECRET = new TextEncoder().encode("unit-test-secret-0123456789-abcdefghijklmnop");
const check = createAuthenticator({
  key: SECRET,
  algorithms: SECRET_ALGORITHMS,
  cache: new TokenCache<Principal>(),
});

const bearer = (token: string) =>
  new Request("http://x/api/customers", { headers: { authorization: `Bearer ${token}` } });

Deno.test("a token check is a span auth.token_check saying whether the cache answered", async () => {
  const recorded = new RecordedSpans();
  const traced = tracedTokenCheck(check, recorded.start);
  const token = await new SignJWT({ sub: "alice", scope: "customers:read" })
    .setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(SECRET);
  const first = traced(bearer(token));
  assert.ok(first instanceof Promise, "the first check verifies the signature");
  assert.equal(recorded.spans[0].ended, false, "the span lasts as long as the verification");
  assert.equal((await first).sub, "alice");
  const second = traced(bearer(token));
  assert.ok(!(second instanceof Promise), "then the cache answers at once");
  assert.deepEqual(
    recorded.named("auth.token_check").map((span) => [span.attributes, span.ended]),
    [
      [{ "auth.cache_hit": false }, true],
      [{ "auth.cache_hit": true }, true],
    ],
  );
});

Deno.test("a refused token's span is failed with the error's kind, never the token", async () => {
  const recorded = new RecordedSpans();
  const traced = tracedTokenCheck(check, recorded.start);
  await assert.rejects(Promise.resolve(traced(bearer("not.a.token"))));
  await assert.rejects(Promise.resolve(traced(new Request("http://x/api/customers"))));
  assert.deepEqual(recorded.spans.map((span) => [span.failed, span.ended]), [
    ["InvalidTokenError", true],
    ["MissingCredentialsError", true],
  ]);
  assert.ok(!JSON.stringify(recorded.spans).includes("not.a.token"));
});

Deno.test("without a span (tracing off) the check is returned as it is", () => {
  assert.equal(tracedTokenCheck(check), check);
});
