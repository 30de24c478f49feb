import assert from "node:assert/strict";
import { resolve } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { effectiveConfig } from "../../src/ops/effective_config.ts";

const summary = (vars: Record<string, string>) => effectiveConfig(loadConfig((name) => vars[name]));

Deno.test("development mode names the dev-secret file by its absolute path", () => {
  const shown = summary({ DATA_DIR: "rel/data" });
  assert.equal(shown.data_dir, resolve("rel/data"));
  assert.equal(
    shown.key_source,
    `development mode (generated secret in ${resolve("rel/data")}/dev-secret)`,
  );
  assert.equal(shown.jwt_secret, "not set");
});

Deno.test("a JWKS_FILE is shown absolute, a JWKS_URL with its cooldown, a SOCKET as unix:<absolute path>", () => {
  const file = summary({
    JWKS_FILE: "config/jwks.json",
    SOCKET: "run/api.sock",
    SOCKET_MODE: "600",
  });
  assert.equal(file.key_source, "JWKS_FILE");
  assert.equal(file.jwks_file, resolve("config/jwks.json"));
  assert.equal(file.listen, `unix:${resolve("run/api.sock")}`);
  assert.equal(file.socket_mode, "0600");
  const url = summary({ JWKS_URL: "https://idp.example/jwks", JWKS_COOLDOWN_SECONDS: "45" });
  assert.equal(url.key_source, "JWKS_URL");
  assert.equal(url.jwks_url, "https://idp.example/jwks");
  assert.equal(url.jwks_cooldown_seconds, 45);
});

Deno.test("a JWT_SECRET is shown only as its length", () => {
  const secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t-42";
  const shown = summary({ JWT_SECRET: secret, RATE_LIMIT: "6000/m", RATE_LIMIT_BURST: "10" });
  assert.equal(shown.jwt_secret, `set (${secret.length} bytes)`);
  assert.ok(!JSON.stringify(shown).includes(secret));
  assert.equal(shown.rate_limit, "6000/m");
  assert.equal(shown.rate_limit_burst, 10);
});

Deno.test("durations are shown as they were written, and unset ones as their defaults are spelled", () => {
  const defaults = summary({});
  assert.equal(defaults.event_retention, "30d");
  assert.equal(defaults.sse_heartbeat, "15s");
  assert.equal(defaults.body_timeout, "30s");
  assert.equal(defaults.webhook_retry_schedule, "5s,5m,30m,2h,5h,10h,10h");
  const shown = summary({
    EVENT_RETENTION: "720h",
    SSE_HEARTBEAT: "2s",
    STREAM_TOKEN_TTL: "30000ms",
    BODY_TIMEOUT: "1m",
    WEBHOOK_RETRY_SCHEDULE: "1s,2s,4s",
  });
  assert.equal(shown.event_retention, "720h");
  assert.equal(shown.sse_heartbeat, "2s");
  assert.equal(shown.stream_token_ttl, "30000ms");
  assert.equal(shown.body_timeout, "1m");
  assert.equal(shown.webhook_retry_schedule, "1s,2s,4s");
  assert.ok(!JSON.stringify(defaults).match(/\d{4,}ms/), JSON.stringify(defaults));
});

Deno.test("the OpenTelemetry settings are shown as the runtime reads them, without header values or passwords", () => {
  const shown = summary({
    OTEL_DENO: "TRUE",
    OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:hunter2@collector.example:4318",
    OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=k3y-v4lue",
    OTEL_SERVICE_NAME: "customers-eu",
  });
  assert.equal(shown.otel_deno, true);
  assert.equal(shown.otel_exporter_otlp_endpoint, "https://user:***@collector.example:4318/");
  assert.equal(shown.otel_exporter_otlp_headers, "set (19 characters)");
  assert.equal(shown.otel_exporter_otlp_protocol, null);
  assert.equal(shown.otel_service_name, "customers-eu");
  for (const secret of ["hunter2", "k3y-v4lue"]) assert.ok(!JSON.stringify(shown).includes(secret));
  assert.equal(summary({}).otel_deno, false);
});
