/** Contract §7 and issue 5 point 4: GET /metrics of the real server, and promtool on it. */
import assert from "node:assert/strict";
import { ApiClient, newCustomer, UNKNOWN_ID } from "../support/api.ts";
import {
  parseSamples,
  promtoolCheck,
  promtoolMissing,
  sample,
  type Samples,
} from "../support/metrics_text.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { skipIf } from "../support/skips.ts";
import { makeToken } from "../support/tokens.ts";

const PROMTOOL_MISSING = await promtoolMissing();

const MERGE_PATCH = "application/merge-patch+json";
const ONE = "/api/customers/:id";
const ALL = "/api/customers";

async function scrape(api: ApiClient): Promise<{ text: string; samples: Samples }> {
  const res = await api.get("/metrics", { token: null });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return { text: res.text, samples: parseSamples(res.text) };
}

/** Not a series of startServer's own /readyz polls, which it makes until the server is ready. */
function ours(key: string): boolean {
  return !key.includes('route="/readyz"');
}

function requests(samples: Samples, route: string, method: string, status: number): number {
  return sample(
    samples,
    `http_requests_total{route="${route}",method="${method}",status="${status}"}`,
  );
}

Deno.test("metrics of the real server", async (t) => {
  const dataDir = await makeDataDir();
  try {
    const server = await startServer({ dataDir });
    const api = new ApiClient(server.url, await makeToken());
    let busy: string;
    try {
      await t.step(
        "a fresh server exposes no writes and no live customers, without a token",
        async () => {
          const { samples } = await scrape(api);
          assert.equal(sample(samples, "events_appended_total"), 0);
          assert.equal(sample(samples, "customers_live"), 0);
          assert.deepEqual(
            [...samples.keys()].filter((k) => k.startsWith("http_")).filter(ours),
            [],
          );
        },
      );

      await t.step(
        "requests, events, live customers and fsyncs are counted as they happen",
        async () => {
          const a = await api.create(newCustomer());
          const b = await api.create(newCustomer());
          const c = await api.create(newCustomer());
          assert.equal((await api.get(`/api/customers/${a.id}`)).status, 200);
          const notModified = await api.get(`/api/customers/${a.id}`, {
            headers: { "if-none-match": '"1"' },
          });
          assert.equal(notModified.status, 304);
          const patched = await api.patch(`/api/customers/${b.id}`, {
            json: { name: "Patched" },
            contentType: MERGE_PATCH,
          });
          assert.equal(patched.status, 200);
          const replaced = await api.put(`/api/customers/${b.id}`, {
            json: { name: "Replaced", email: b.email },
          });
          assert.equal(replaced.status, 200);
          assert.equal((await api.delete(`/api/customers/${c.id}`)).status, 204);
          assert.equal((await api.get(`/api/customers/${UNKNOWN_ID}`)).status, 404);
          assert.equal((await api.post(ALL, { json: { name: "" } })).status, 422);
          assert.equal(
            (await api.post(ALL, { json: newCustomer({ email: a.email }) })).status,
            409,
          );
          assert.equal((await api.get(ALL, { token: null })).status, 401);
          assert.equal((await api.get(ALL)).status, 200);
          assert.equal((await api.get("/api/nothing-here")).status, 404);
          assert.equal((await api.get("/healthz", { token: null })).status, 200);

          const { text, samples } = await scrape(api);
          busy = text;
          assert.equal(requests(samples, ALL, "POST", 201), 3);
          assert.equal(requests(samples, ALL, "POST", 422), 1);
          assert.equal(requests(samples, ALL, "POST", 409), 1);
          assert.equal(requests(samples, ALL, "GET", 401), 1);
          assert.equal(requests(samples, ALL, "GET", 200), 1);
          assert.equal(requests(samples, ONE, "GET", 200), 1);
          assert.equal(requests(samples, ONE, "GET", 304), 1);
          assert.equal(requests(samples, ONE, "GET", 404), 1);
          assert.equal(requests(samples, ONE, "PATCH", 200), 1);
          assert.equal(requests(samples, ONE, "PUT", 200), 1);
          assert.equal(requests(samples, ONE, "DELETE", 204), 1);
          assert.equal(requests(samples, "unmatched", "GET", 404), 1);
          assert.equal(requests(samples, "/healthz", "GET", 200), 1);
          assert.equal(requests(samples, "/metrics", "GET", 200), 1, "the first scrape");
          const series = [...samples.entries()].filter(([k]) =>
            k.startsWith("http_requests_total") && ours(k)
          );
          assert.equal(series.length, 14, "no series beyond the requests made");
          assert.equal(series.reduce((sum, [, n]) => sum + n, 0), 16, "every request counted once");
          const latency = (route: string) =>
            sample(samples, `http_request_duration_seconds_count{route="${route}"}`);
          assert.equal(latency(ALL), 7);
          assert.equal(latency(ONE), 6);
          assert.equal(latency("unmatched"), 1);
          assert.equal(
            sample(samples, `http_request_duration_seconds_bucket{route="${ALL}",le="+Inf"}`),
            7,
          );
          assert.equal(
            sample(samples, "events_appended_total"),
            6,
            "3 creates, patch, put, delete",
          );
          assert.equal(sample(samples, "customers_live"), 2);
          const fsyncs = sample(samples, "log_fsync_duration_seconds_count");
          assert.ok(fsyncs > 0, `log_fsync_duration_seconds_count is ${fsyncs}`);
          assert.equal(sample(samples, 'log_fsync_duration_seconds_bucket{le="+Inf"}'), fsyncs);
          assert.ok(sample(samples, "log_fsync_duration_seconds_sum") > 0);
        },
      );

      await t.step("a scrape is counted after it renders, so the next one shows it", async () => {
        const { samples } = await scrape(api);
        assert.equal(requests(samples, "/metrics", "GET", 200), 2);
      });

      await t.step(skipIf(PROMTOOL_MISSING, {
        name: "promtool check metrics accepts the server's text after real traffic",
        fn: async () => {
          const { code, output } = await promtoolCheck(busy);
          assert.equal(code, 0, `promtool exit ${code}:\n${output}\n--- metrics ---\n${busy}`);
        },
      }));
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
    }

    await t.step(
      "after a restart customers_live comes from replay and counters start at zero",
      async () => {
        await using again = await startServer({ dataDir });
        const { samples } = await scrape(new ApiClient(again.url, null));
        assert.equal(sample(samples, "customers_live"), 2);
        assert.equal(sample(samples, "events_appended_total"), 0);
      },
    );
  } finally {
    await removeDir(dataDir);
  }
});
