/** Issue 5 point 6: the per-subject token bucket of the real server (RATE_LIMIT, 429, headers). */
import assert from "node:assert/strict";
import { ApiClient, type ApiResponse, assertProblem } from "../support/api.ts";
import { runUntilExit, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const POLICY = '"default";q=5;w=1';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("RATE_LIMIT=5/s with a burst of 5", async (t) => {
  await using server = await startServer({
    env: { RATE_LIMIT: "5/s", RATE_LIMIT_BURST: "5" },
  });
  const alice = new ApiClient(server.url, await makeToken({ sub: "rate-alice" }));
  const bob = new ApiClient(server.url, await makeToken({ sub: "rate-bob" }));
  let retryAfter = 0;

  await t.step(
    "a burst of 10 gets exactly 5 answers, then 429 problems with Retry-After",
    async () => {
      const [burst, others] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => alice.get("/api/customers?limit=1"))),
        // Another subject at the same moment is unaffected.
        Promise.all(Array.from({ length: 5 }, () => bob.get("/api/customers?limit=1"))),
      ]);
      const ok = burst.filter((res) => res.status === 200);
      const limited = burst.filter((res) => res.status === 429);
      assert.equal(ok.length, 5, burst.map((res) => res.status).join(" "));
      assert.equal(limited.length, 5, burst.map((res) => res.status).join(" "));
      assert.deepEqual(
        ok.map((res) => res.headers.get("ratelimit")).sort(),
        [0, 1, 2, 3, 4].map((r) => `"default";r=${r};t=0`),
      );
      for (const res of ok) assert.equal(res.headers.get("ratelimit-policy"), POLICY);
      for (const res of limited) {
        assertProblem(res, 429);
        assert.equal(res.body.type, "urn:problem-type:customer-api:rate-limited");
        const header = res.headers.get("retry-after") ?? "";
        assert.match(header, /^[1-9][0-9]*$/, `Retry-After "${header}"`);
        retryAfter = Number(header);
        assert.equal(retryAfter, 1, "at 5/s the next token is at most 200 ms away");
        assert.equal(res.headers.get("ratelimit-policy"), POLICY);
        assert.equal(res.headers.get("ratelimit"), `"default";r=0;t=${retryAfter}`);
      }
      assert.deepEqual(others.map((res) => res.status), [200, 200, 200, 200, 200]);
      assert.deepEqual(
        others.map((res) => res.headers.get("ratelimit")).sort(),
        [0, 1, 2, 3, 4].map((r) => `"default";r=${r};t=0`),
      );
    },
  );

  await t.step("a new token of the same subject shares the exhausted bucket", async () => {
    const res = await alice.get("/api/customers", {
      token: await makeToken({ sub: "rate-alice" }),
    });
    assertProblem(res, 429);
  });

  await t.step("after waiting Retry-After seconds the subject is served again", async () => {
    await sleep(retryAfter * 1000);
    const res = await alice.get("/api/customers?limit=1");
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get("ratelimit-policy"), POLICY);
  });

  await t.step(
    "requests without a valid token and open endpoints are not rate limited",
    async () => {
      const unauthenticated: ApiResponse[] = [];
      for (let i = 0; i < 8; i++) {
        unauthenticated.push(
          await alice.get("/api/customers", { token: null }),
        );
      }
      for (const res of unauthenticated) {
        assert.equal(res.status, 401);
        assert.equal(res.headers.get("ratelimit"), null);
      }
      for (const path of ["/healthz", "/readyz", "/metrics"]) {
        for (let i = 0; i < 8; i++) {
          const res = await alice.get(path, { token: null });
          assert.equal(res.status, 200, path);
          assert.equal(res.headers.get("ratelimit-policy"), null, path);
        }
      }
    },
  );
});

Deno.test("rate limiting is off by default: 30 quick requests all succeed without RateLimit headers", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken({ sub: "rate-unlimited" }));
  const responses = await Promise.all(
    Array.from({ length: 30 }, () => api.get("/api/customers?limit=1")),
  );
  for (const res of responses) {
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("ratelimit"), null);
    assert.equal(res.headers.get("ratelimit-policy"), null);
    assert.equal(res.headers.get("retry-after"), null);
  }
});

Deno.test("an unparseable RATE_LIMIT refuses to start, quoting it", async () => {
  const result = await runUntilExit({ env: { RATE_LIMIT: "100/d" } });
  assert.equal(result.code, 78, result.stderr);
  assert.equal(
    result.stderr.trim(),
    'customer-api cannot start: RATE_LIMIT "100/d" must look like 100/s, 6000/m or 100000/h',
  );
});
