import assert from "node:assert/strict";
import { type Config, loadConfig, MIN_SECRET_BYTES } from "../src/config.ts";
import { ConfigError } from "../src/settings/config_error.ts";
import { StartupError } from "../src/lib/startup_error.ts";

const SECRET_32 = "0123456789abcdef0123456789abcdef";

function load(vars: Record<string, string>): Config {
  return loadConfig((name) => vars[name]);
}

function assertConfigError(vars: Record<string, string>, message: string): void {
  assert.throws(() => load(vars), (error: unknown) => {
    assert.ok(error instanceof ConfigError, `got ${error}`);
    assert.equal(error.message, message);
    return true;
  });
}

Deno.test("with nothing set, the defaults of contract §1 apply in development mode", () => {
  assert.deepEqual(load({}), {
    port: 8000,
    host: "127.0.0.1",
    socket: undefined,
    socketMode: 0o660,
    publicUrl: undefined,
    dataDir: "./data",
    keySource: { kind: "dev" },
    jwtIssuer: undefined,
    jwtAudience: undefined,
    maxBodyBytes: 65536,
    snapshotEvery: 100_000,
    eraseWithinSeconds: 3600,
    segmentMaxBytes: 64 * 1024 * 1024,
    logLevel: "info",
    logFormat: "auto",
    rateLimit: undefined,
    corsOrigins: [],
    bodyTimeoutMs: 30_000,
    idempotencyMaxKeys: 100_000,
    eventRetentionMs: 30 * 86_400_000,
    maxStreams: 1000,
    sseHeartbeatMs: 15_000,
    streamTokenTtlMs: 60_000,
    webhookTimeoutMs: 10_000,
    webhookRetryScheduleMs: [
      5_000,
      300_000,
      1_800_000,
      7_200_000,
      18_000_000,
      36_000_000,
      36_000_000,
    ],
    webhookAllowPrivate: false,
    maxWebhooks: 100,
    databaseUrl: undefined,
    durationsAsWritten: {
      BODY_TIMEOUT: "30s",
      EVENT_RETENTION: "30d",
      SSE_HEARTBEAT: "15s",
      STREAM_TOKEN_TTL: "60s",
      WEBHOOK_TIMEOUT: "10s",
      WEBHOOK_RETRY_SCHEDULE: "5s,5m,30m,2h,5h,10h,10h",
    },
    console: true,
    otel: {
      enabled: false,
      endpoint: undefined,
      protocol: undefined,
      headers: undefined,
      serviceName: undefined,
      resourceAttributes: undefined,
    },
  });
});

Deno.test("empty variables count as unset", () => {
  const vars = {
    PORT: "",
    HOST: "",
    DATA_DIR: "",
    JWT_SECRET: "",
    JWKS_FILE: "",
    JWKS_URL: "",
    JWT_ISSUER: "",
    JWT_AUDIENCE: "",
    MAX_BODY_BYTES: "",
    SNAPSHOT_EVERY: "",
    ERASE_WITHIN_SECONDS: "",
    SEGMENT_MAX_BYTES: "",
    BODY_TIMEOUT: "",
    IDEMPOTENCY_MAX_KEYS: "",
  };
  assert.deepEqual(load(vars), load({}));
});

Deno.test("HOST, DATA_DIR, JWT_ISSUER and JWT_AUDIENCE are taken as given", () => {
  const config = load({
    HOST: "0.0.0.0",
    DATA_DIR: "/var/lib/customers",
    JWT_ISSUER: "https://id.example",
    JWT_AUDIENCE: "customer-api",
  });
  assert.equal(config.host, "0.0.0.0");
  assert.equal(config.dataDir, "/var/lib/customers");
  assert.equal(config.jwtIssuer, "https://id.example");
  assert.equal(config.jwtAudience, "customer-api");
});

Deno.test("PORT accepts 0 (any free port) through 65535", () => {
  assert.equal(load({ PORT: "0" }).port, 0);
  assert.equal(load({ PORT: "8080" }).port, 8080);
  assert.equal(load({ PORT: "65535" }).port, 65535);
});

Deno.test("PORT outside 0 to 65535 or not an integer is refused, quoting it", () => {
  for (const port of ["65536", "-1", "abc", "80.5", " 80", "8e3", "0x50"]) {
    assertConfigError({ PORT: port }, `PORT "${port}" must be an integer from 0 to 65535`);
  }
});

Deno.test("a JWT_SECRET of at least 32 bytes is the key source", () => {
  assert.equal(MIN_SECRET_BYTES, 32);
  assert.deepEqual(load({ JWT_SECRET: SECRET_32 }).keySource, {
    kind: "secret",
    secret: new TextEncoder().encode(SECRET_32),
  });
});

Deno.test("a JWT_SECRET shorter than 32 bytes is refused with a message naming it", () => {
  assertConfigError(
    { JWT_SECRET: SECRET_32.slice(1) },
    "JWT_SECRET is 31 bytes; use at least 32 random bytes",
  );
  assertConfigError(
    { JWT_SECRET: "secret" },
    "JWT_SECRET is 6 bytes; use at least 32 random bytes",
  );
});

Deno.test("JWT_SECRET length is counted in UTF-8 bytes, not characters", () => {
  const sixteenChars = "é".repeat(16);
  assert.deepEqual(load({ JWT_SECRET: sixteenChars }).keySource, {
    kind: "secret",
    secret: new TextEncoder().encode(sixteenChars),
  });
});

Deno.test("two key sources are refused, naming both", () => {
  assertConfigError(
    { JWT_SECRET: SECRET_32, JWKS_FILE: "/etc/jwks.json" },
    "Set exactly one key source, not JWT_SECRET and JWKS_FILE",
  );
  assertConfigError(
    { JWKS_FILE: "/etc/jwks.json", JWKS_URL: "https://id.example/jwks" },
    "Set exactly one key source, not JWKS_FILE and JWKS_URL",
  );
});

Deno.test("three key sources are refused, naming all three", () => {
  assertConfigError(
    { JWT_SECRET: SECRET_32, JWKS_FILE: "/etc/jwks.json", JWKS_URL: "https://id.example/jwks" },
    "Set exactly one key source, not JWT_SECRET and JWKS_FILE and JWKS_URL",
  );
});

Deno.test("two key sources are refused even when the secret is also too short", () => {
  assertConfigError(
    { JWT_SECRET: "short", JWKS_FILE: "/etc/jwks.json" },
    "Set exactly one key source, not JWT_SECRET and JWKS_FILE",
  );
});

Deno.test("JWKS_FILE alone is the key source", () => {
  assert.deepEqual(load({ JWKS_FILE: "/etc/jwks.json" }).keySource, {
    kind: "jwks-file",
    path: "/etc/jwks.json",
  });
});

Deno.test("JWKS_URL alone is the key source with a 30 s refetch cooldown by default", () => {
  assert.deepEqual(load({ JWKS_URL: "https://id.example/.well-known/jwks.json" }).keySource, {
    kind: "jwks-url",
    url: new URL("https://id.example/.well-known/jwks.json"),
    cooldownMs: 30_000,
  });
});

Deno.test("a JWKS_URL that is not https (or http on loopback) is refused, quoting it", () => {
  assertConfigError({ JWKS_URL: "not a url" }, 'JWKS_URL "not a url" is not a URL');
  for (const url of ["file:///etc/jwks.json", "http://idp.example.com/jwks.json"]) {
    assertConfigError(
      { JWKS_URL: url },
      `JWKS_URL "${url}" must be an https:// URL (http:// only on loopback)`,
    );
  }
  for (const url of ["https://idp.example.com/jwks", "http://127.0.0.1:9999/jwks"]) {
    assert.equal(load({ JWKS_URL: url }).keySource.kind, "jwks-url");
  }
});

Deno.test("MAX_BODY_BYTES defaults to 64 KiB and accepts 1 KiB through 16 MiB", () => {
  assert.equal(load({}).maxBodyBytes, 65536);
  assert.equal(load({ MAX_BODY_BYTES: "1024" }).maxBodyBytes, 1024);
  assert.equal(load({ MAX_BODY_BYTES: "16777216" }).maxBodyBytes, 16777216);
});

Deno.test("MAX_BODY_BYTES outside 1 KiB to 16 MiB or not an integer is refused, quoting it", () => {
  for (const value of ["1023", "16777217", "0", "64k", "-5"]) {
    assertConfigError(
      { MAX_BODY_BYTES: value },
      `MAX_BODY_BYTES "${value}" must be an integer from 1024 to 16777216`,
    );
  }
});

Deno.test("SNAPSHOT_EVERY, ERASE_WITHIN_SECONDS and SEGMENT_MAX_BYTES accept their bounds", () => {
  const low = load({ SNAPSHOT_EVERY: "1", ERASE_WITHIN_SECONDS: "0", SEGMENT_MAX_BYTES: "4096" });
  assert.deepEqual(
    [low.snapshotEvery, low.eraseWithinSeconds, low.segmentMaxBytes],
    [1, 0, 4096],
  );
  const high = load({
    SNAPSHOT_EVERY: "100000000",
    ERASE_WITHIN_SECONDS: "2592000",
    SEGMENT_MAX_BYTES: "1099511627776",
  });
  assert.deepEqual(
    [high.snapshotEvery, high.eraseWithinSeconds, high.segmentMaxBytes],
    [100_000_000, 2_592_000, 2 ** 40],
  );
});

Deno.test("SNAPSHOT_EVERY, ERASE_WITHIN_SECONDS and SEGMENT_MAX_BYTES out of range are refused", () => {
  assertConfigError(
    { SNAPSHOT_EVERY: "0" },
    'SNAPSHOT_EVERY "0" must be an integer from 1 to 100000000',
  );
  assertConfigError(
    { ERASE_WITHIN_SECONDS: "2592001" },
    'ERASE_WITHIN_SECONDS "2592001" must be an integer from 0 to 2592000',
  );
  assertConfigError(
    { SEGMENT_MAX_BYTES: "4095" },
    'SEGMENT_MAX_BYTES "4095" must be an integer from 4096 to 1099511627776',
  );
});

Deno.test("JWKS_COOLDOWN_SECONDS sets the refetch cooldown of JWKS_URL within 1 to 3600", () => {
  const url = "https://id.example/jwks";
  const config = load({ JWKS_URL: url, JWKS_COOLDOWN_SECONDS: "5" });
  assert.deepEqual(config.keySource, { kind: "jwks-url", url: new URL(url), cooldownMs: 5000 });
  assertConfigError(
    { JWKS_URL: url, JWKS_COOLDOWN_SECONDS: "0" },
    'JWKS_COOLDOWN_SECONDS "0" must be an integer from 1 to 3600',
  );
});

Deno.test("SOCKET is taken as given and SOCKET_MODE is read as octal", () => {
  const config = load({ SOCKET: "/run/customer api.sock", SOCKET_MODE: "600" });
  assert.equal(config.socket, "/run/customer api.sock");
  assert.equal(config.socketMode, 0o600);
  assert.equal(load({ SOCKET_MODE: "0640" }).socketMode, 0o640);
});

Deno.test("a SOCKET_MODE that is not an octal mode is refused, quoting it", () => {
  for (const value of ["rw", "999", "7777", "-1"]) {
    assertConfigError(
      { SOCKET_MODE: value },
      `SOCKET_MODE "${value}" must be an octal file mode such as 660`,
    );
  }
});

Deno.test("PUBLIC_URL keeps the base URL without a trailing slash", () => {
  assert.equal(
    load({ PUBLIC_URL: "https://api.example.com/" }).publicUrl,
    "https://api.example.com",
  );
  assert.equal(
    load({ PUBLIC_URL: "http://x.test:8080/base/" }).publicUrl,
    "http://x.test:8080/base",
  );
});

Deno.test("a PUBLIC_URL that is not a plain http(s) URL is refused, quoting it", () => {
  for (
    const value of ["api.example.com", "ftp://x.test", "https://x.test/?a=1", "https://u:p@x.test"]
  ) {
    assertConfigError(
      { PUBLIC_URL: value },
      `PUBLIC_URL "${value}" must be an http:// or https:// URL with no query, fragment or credentials`,
    );
  }
});

Deno.test("BODY_TIMEOUT reads ms, s, m and h durations", () => {
  assert.equal(load({ BODY_TIMEOUT: "500ms" }).bodyTimeoutMs, 500);
  assert.equal(load({ BODY_TIMEOUT: "2m" }).bodyTimeoutMs, 120_000);
  assert.equal(load({ BODY_TIMEOUT: "1h" }).bodyTimeoutMs, 3_600_000);
  assert.equal(load({ BODY_TIMEOUT: "10s" }).bodyTimeoutMs, 10_000);
});

Deno.test("a timeout without a unit, of zero, negative, fractional or over 24h is refused", () => {
  for (const value of ["10", "0s", "-1s", "1.5s", "25h", "10 s", "ten seconds"]) {
    assert.throws(
      () => load({ BODY_TIMEOUT: value }),
      (error: Error) =>
        error instanceof ConfigError && error.message.startsWith(`BODY_TIMEOUT "${value}" must be`),
      value,
    );
  }
});

Deno.test("IDEMPOTENCY_MAX_KEYS defaults to 100000 and must be a positive integer", () => {
  assert.equal(load({}).idempotencyMaxKeys, 100_000);
  assert.equal(load({ IDEMPOTENCY_MAX_KEYS: "5" }).idempotencyMaxKeys, 5);
  assert.throws(() => load({ IDEMPOTENCY_MAX_KEYS: "0" }), ConfigError);
});

Deno.test("a SOCKET longer than a Unix socket path may be is refused, quoting it", () => {
  const long = `/run/${"s".repeat(103)}`;
  assertConfigError(
    { SOCKET: long },
    `SOCKET "${long}" is 108 bytes long; a Unix socket path may have at most 107, so choose a shorter one`,
  );
  assert.equal(load({ SOCKET: long.slice(0, 107) }).socket, long.slice(0, 107));
});

Deno.test("a ConfigError is a StartupError with the configuration exit code 78", () => {
  const error = new ConfigError("x");
  assert.ok(error instanceof StartupError);
  assert.equal(error.exitCode, 78);
});

Deno.test("the feed and webhook settings default to the contract's values", () => {
  const config = load({});
  assert.equal(config.eventRetentionMs, 30 * 86_400_000);
  assert.equal(config.maxStreams, 1000);
  assert.equal(config.sseHeartbeatMs, 15_000);
  assert.equal(config.streamTokenTtlMs, 60_000);
  assert.equal(config.webhookTimeoutMs, 10_000);
  assert.deepEqual(
    config.webhookRetryScheduleMs,
    [5, 300, 1800, 7200, 18_000, 36_000, 36_000].map((s) => s * 1000),
  );
  assert.equal(config.webhookAllowPrivate, false);
  assert.equal(config.maxWebhooks, 100);
  assert.equal(config.databaseUrl, undefined);
});

Deno.test("EVENT_RETENTION takes days, WEBHOOK_RETRY_SCHEDULE a list, WEBHOOK_ALLOW_PRIVATE 1 or 0", () => {
  const config = load({
    EVENT_RETENTION: "7d",
    WEBHOOK_RETRY_SCHEDULE: "1s, 2s,4s",
    WEBHOOK_ALLOW_PRIVATE: "1",
  });
  assert.equal(config.eventRetentionMs, 7 * 86_400_000);
  assert.deepEqual(config.webhookRetryScheduleMs, [1000, 2000, 4000]);
  assert.equal(config.webhookAllowPrivate, true);
  assert.equal(load({ WEBHOOK_ALLOW_PRIVATE: "0" }).webhookAllowPrivate, false);
});

Deno.test("bad feed and webhook settings are refused, quoting them", () => {
  assertConfigError(
    { EVENT_RETENTION: "4000d" },
    'EVENT_RETENTION "4000d" must be a duration from 1ms to 3650d such as 10s, 2h or 30d',
  );
  assertConfigError(
    { WEBHOOK_RETRY_SCHEDULE: "1s,,2s" },
    'WEBHOOK_RETRY_SCHEDULE "1s,,2s" must be 1 to 20 comma-separated durations from 1ms to 24h, such as 1s,2s,4s',
  );
  assertConfigError(
    { WEBHOOK_ALLOW_PRIVATE: "yes" },
    'WEBHOOK_ALLOW_PRIVATE "yes" must be 1 (on) or 0 (off)',
  );
  assertConfigError({ MAX_STREAMS: "0" }, 'MAX_STREAMS "0" must be an integer from 1 to 1000000');
});

Deno.test("SSE_HEARTBEAT takes 1s to 15s and STREAM_TOKEN_TTL 1s to 60s, the contract's most", () => {
  const config = load({ SSE_HEARTBEAT: "2s", STREAM_TOKEN_TTL: "1000ms" });
  assert.equal(config.sseHeartbeatMs, 2000);
  assert.equal(config.streamTokenTtlMs, 1000);
  assert.equal(load({ SSE_HEARTBEAT: "15s", STREAM_TOKEN_TTL: "1m" }).streamTokenTtlMs, 60_000);
  for (const value of ["16s", "999ms", "0s", "1", "1h"]) {
    assertConfigError(
      { SSE_HEARTBEAT: value },
      `SSE_HEARTBEAT "${value}" must be a duration from 1s to 15s such as 1s or 15s`,
    );
  }
  for (const value of ["61s", "2m", "500ms"]) {
    assertConfigError(
      { STREAM_TOKEN_TTL: value },
      `STREAM_TOKEN_TTL "${value}" must be a duration from 1s to 60s such as 1s or 60s`,
    );
  }
});

Deno.test("DATABASE_URL must be a postgres URL, and a refusal never quotes its password", () => {
  const url = "postgres://app:s3cret@127.0.0.1:5432/customers";
  assert.equal(load({ DATABASE_URL: url }).databaseUrl, url);
  assert.equal(load({ DATABASE_URL: "postgresql://h/db" }).databaseUrl, "postgresql://h/db");
  assert.throws(() => load({ DATABASE_URL: "mysql://app:s3cret@h/db" }), (error: Error) => {
    assert.ok(error instanceof ConfigError);
    assert.ok(!error.message.includes("s3cret"), error.message);
    assert.match(error.message, /^DATABASE_URL must be a postgres:\/\//);
    return true;
  });
});

Deno.test("CONSOLE is on or off, and anything else is refused, quoting it", () => {
  assert.equal(load({ CONSOLE: "off" }).console, false);
  assert.equal(load({ CONSOLE: "on" }).console, true);
  assertConfigError({ CONSOLE: "no" }, 'CONSOLE "no" must be on or off');
});
