import assert from "node:assert/strict";
import { Metrics } from "../../src/ops/metrics.ts";
import { parseSamples, promtoolCheck, promtoolMissing, sample } from "../support/metrics_text.ts";
import { skipIf } from "../support/skips.ts";

const PROMTOOL_MISSING = await promtoolMissing();

const REQUEST_LE = ["0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25"]
  .concat(["0.5", "1", "2.5", "+Inf"]);
const FSYNC_LE = ["0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025"]
  .concat(["0.1", "1", "+Inf"]);

/** Metrics after two 201s and one 422 on POST /api/customers, three events and one fsync. */
function busyMetrics(live: () => number): Metrics {
  const metrics = new Metrics(live);
  metrics.observeRequest("/api/customers", "POST", 201, 0.003);
  metrics.observeRequest("/api/customers", "POST", 201, 0.0025);
  metrics.observeRequest("/api/customers", "POST", 422, 3);
  metrics.eventsAppended(2);
  metrics.eventsAppended(1);
  metrics.observeFsync(0.0002);
  metrics.acceptStopped();
  return metrics;
}

Deno.test("render writes every family with HELP and TYPE, cumulative buckets, sum and count", () => {
  const text = busyMetrics(() => 3).render();
  const requestBuckets = [0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3];
  const fsyncBuckets = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
  const expected = [
    "# HELP http_requests_total HTTP requests by route pattern, method and status.",
    "# TYPE http_requests_total counter",
    'http_requests_total{route="/api/customers",method="POST",status="201"} 2',
    'http_requests_total{route="/api/customers",method="POST",status="422"} 1',
    "# HELP http_request_duration_seconds HTTP request latency by route pattern.",
    "# TYPE http_request_duration_seconds histogram",
    ...REQUEST_LE.map((le, i) =>
      `http_request_duration_seconds_bucket{route="/api/customers",le="${le}"} ${requestBuckets[i]}`
    ),
    `http_request_duration_seconds_sum{route="/api/customers"} ${0.003 + 0.0025 + 3}`,
    'http_request_duration_seconds_count{route="/api/customers"} 3',
    "# HELP events_appended_total Events made durable in the log.",
    "# TYPE events_appended_total counter",
    "events_appended_total 3",
    "# HELP log_fsync_duration_seconds Latency of fdatasync on the event log.",
    "# TYPE log_fsync_duration_seconds histogram",
    ...FSYNC_LE.map((le, i) => `log_fsync_duration_seconds_bucket{le="${le}"} ${fsyncBuckets[i]}`),
    "log_fsync_duration_seconds_sum 0.0002",
    "log_fsync_duration_seconds_count 1",
    "# HELP listener_restarts_total Episodes of failed accepts (no file descriptors) that restarted the listener.",
    "# TYPE listener_restarts_total counter",
    "listener_restarts_total 1",
    "# HELP customers_live Live customers in memory.",
    "# TYPE customers_live gauge",
    "customers_live 3",
    "",
  ].join("\n");
  // The process's memory changes from call to call: its gauges are checked for shape only.
  const memory = text.indexOf("# HELP process_resident_memory_bytes");
  assert.equal(text.slice(0, memory), expected);
  assert.match(text.slice(memory), /^process_resident_memory_bytes \d+$/m);
  assert.match(text.slice(memory), /^process_heap_used_bytes \d+$/m);
});

Deno.test("a fresh registry exposes zero counters, empty fsync buckets and the live gauge", () => {
  const samples = parseSamples(new Metrics(() => 0).render());
  assert.deepEqual(
    [...samples.keys()].filter((key) => key.startsWith("http_")),
    [],
    "no request series before the first request",
  );
  assert.equal(sample(samples, "events_appended_total"), 0);
  assert.equal(sample(samples, "listener_restarts_total"), 0);
  assert.equal(sample(samples, 'log_fsync_duration_seconds_bucket{le="+Inf"}'), 0);
  assert.equal(sample(samples, "log_fsync_duration_seconds_count"), 0);
  assert.equal(sample(samples, "log_fsync_duration_seconds_sum"), 0);
  assert.equal(sample(samples, "customers_live"), 0);
});

Deno.test("each route, method and status has its own counter, and each route its own histogram", () => {
  const metrics = new Metrics(() => 0);
  metrics.observeRequest("/api/customers/:id", "GET", 200, 0.001);
  metrics.observeRequest("/api/customers/:id", "GET", 200, 0.001);
  metrics.observeRequest("/api/customers/:id", "GET", 404, 0.001);
  metrics.observeRequest("/api/customers/:id", "DELETE", 204, 0.001);
  metrics.observeRequest("unmatched", "GET", 404, 0.001);
  const samples = parseSamples(metrics.render());
  const count = (route: string, method: string, status: number) =>
    sample(samples, `http_requests_total{route="${route}",method="${method}",status="${status}"}`);
  assert.equal(count("/api/customers/:id", "GET", 200), 2);
  assert.equal(count("/api/customers/:id", "GET", 404), 1);
  assert.equal(count("/api/customers/:id", "DELETE", 204), 1);
  assert.equal(count("unmatched", "GET", 404), 1);
  assert.equal(
    sample(samples, 'http_request_duration_seconds_count{route="/api/customers/:id"}'),
    4,
  );
  assert.equal(sample(samples, 'http_request_duration_seconds_count{route="unmatched"}'), 1);
  assert.equal([...samples.keys()].filter((k) => k.startsWith("http_requests_total")).length, 4);
});

Deno.test("a latency equal to a bucket bound counts in that bucket (le is inclusive)", () => {
  const metrics = new Metrics(() => 0);
  metrics.observeRequest("/healthz", "GET", 200, 0.01);
  metrics.observeFsync(0.001);
  const samples = parseSamples(metrics.render());
  assert.equal(
    sample(samples, 'http_request_duration_seconds_bucket{route="/healthz",le="0.005"}'),
    0,
  );
  assert.equal(
    sample(samples, 'http_request_duration_seconds_bucket{route="/healthz",le="0.01"}'),
    1,
  );
  assert.equal(sample(samples, 'log_fsync_duration_seconds_bucket{le="0.0005"}'), 0);
  assert.equal(sample(samples, 'log_fsync_duration_seconds_bucket{le="0.001"}'), 1);
});

Deno.test("counters only grow: events and fsyncs accumulate across renders", () => {
  const metrics = new Metrics(() => 0);
  metrics.eventsAppended(1);
  metrics.observeFsync(0.002);
  assert.equal(sample(parseSamples(metrics.render()), "events_appended_total"), 1);
  metrics.eventsAppended(4);
  metrics.observeFsync(0.5);
  const samples = parseSamples(metrics.render());
  assert.equal(sample(samples, "events_appended_total"), 5);
  assert.equal(sample(samples, "log_fsync_duration_seconds_count"), 2);
  assert.equal(sample(samples, "log_fsync_duration_seconds_sum"), 0.502);
  assert.equal(sample(samples, 'log_fsync_duration_seconds_bucket{le="0.0025"}'), 1);
  assert.equal(sample(samples, 'log_fsync_duration_seconds_bucket{le="1"}'), 2);
});

Deno.test("customers_live is read from the projection at each render", () => {
  let live = 7;
  const metrics = new Metrics(() => live);
  assert.equal(sample(parseSamples(metrics.render()), "customers_live"), 7);
  live = 6;
  assert.equal(sample(parseSamples(metrics.render()), "customers_live"), 6);
});

Deno.test(skipIf(PROMTOOL_MISSING, {
  name: "promtool check metrics accepts the rendered text, fresh and busy",
  fn: async () => {
    for (const metrics of [new Metrics(() => 0), busyMetrics(() => 3)]) {
      const { code, output } = await promtoolCheck(metrics.render());
      assert.equal(code, 0, output);
      assert.equal(output.trim(), "");
    }
  },
}));

Deno.test("webhook families: deliveries by outcome, latency, and each endpoint's backlog and state", () => {
  const metrics = new Metrics(() => 0);
  assert.ok(!metrics.render().includes("webhook_"), "no webhook family before webhooks are wired");
  metrics.watchWebhooks(() => [
    { id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", backlog: 7, active: false },
  ]);
  metrics.watchWebhookHolds(() => ({ count: 3, seconds: 0.25 }));
  metrics.observeWebhookDelivery("success", 0.02);
  metrics.observeWebhookDelivery("timeout", 10);
  const samples = parseSamples(metrics.render());
  assert.equal(sample(samples, "webhook_attempts_held_total"), 3);
  assert.equal(sample(samples, "webhook_held_seconds_total"), 0.25);
  assert.equal(sample(samples, 'webhook_deliveries_total{outcome="success"}'), 1);
  assert.equal(sample(samples, 'webhook_deliveries_total{outcome="timeout"}'), 1);
  assert.equal(sample(samples, 'webhook_delivery_duration_seconds_bucket{le="0.025"}'), 1);
  assert.equal(sample(samples, "webhook_delivery_duration_seconds_count"), 2);
  assert.equal(
    sample(samples, 'webhook_backlog_events{webhook_id="01ARZ3NDEKTSV4RRFFQ69G5FAV"}'),
    7,
  );
  assert.equal(
    sample(samples, 'webhook_endpoint_active{webhook_id="01ARZ3NDEKTSV4RRFFQ69G5FAV"}'),
    0,
  );
});
