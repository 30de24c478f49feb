import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { SETTINGS_ENV_VARS } from "../../src/ops/permissions.ts";

const example = await Deno.readTextFile(new URL("../../.env.example", import.meta.url));
/** `# NAME=value` lines: every setting is shown commented out, so the file sets nothing as is. */
const shown = new Map(
  [...example.matchAll(/^# ([A-Z_]+)=(.*)$/gm)].map(([, name, value]) => [name, value]),
);
/** Settings whose shown value is their default (the others show an example value). */
const WITH_DEFAULTS = [
  "PORT",
  "HOST",
  "SOCKET_MODE",
  "DATA_DIR",
  "SNAPSHOT_EVERY",
  "ERASE_WITHIN_SECONDS",
  "SEGMENT_MAX_BYTES",
  "JWKS_COOLDOWN_SECONDS",
  "MAX_BODY_BYTES",
  "LOG_LEVEL",
  "LOG_FORMAT",
  "BODY_TIMEOUT",
  "IDEMPOTENCY_MAX_KEYS",
  "EVENT_RETENTION",
  "MAX_STREAMS",
  "SSE_HEARTBEAT",
  "STREAM_TOKEN_TTL",
  "WEBHOOK_TIMEOUT",
  "WEBHOOK_RETRY_SCHEDULE",
  "WEBHOOK_ALLOW_PRIVATE",
  "MAX_WEBHOOKS",
  "CONSOLE",
  "OTEL_DENO",
];

Deno.test(".env.example shows every variable the server reads, and no other", () => {
  assert.deepEqual([...shown.keys()].sort(), [...SETTINGS_ENV_VARS].sort());
});

Deno.test(".env.example sets nothing when loaded as it is: every line is a comment", () => {
  const assignments = example.split("\n").filter((line) =>
    line.trim() !== "" && !line.startsWith("#")
  );
  assert.deepEqual(assignments, []);
});

Deno.test("the value .env.example shows for a setting with a default is that default", () => {
  // JWKS_COOLDOWN_SECONDS only counts with JWKS_URL, so every load has one.
  const base = { JWKS_URL: "https://idp.example/jwks" };
  const defaults = loadConfig((name) => (base as Record<string, string>)[name]);
  for (const name of WITH_DEFAULTS) {
    const env: Record<string, string> = { ...base, [name]: shown.get(name)! };
    assert.deepEqual(loadConfig((key) => env[key]), defaults, name);
  }
});

Deno.test("every example value in .env.example is accepted by the configuration", () => {
  for (const [name, value] of shown) {
    if (value === "") continue;
    const env: Record<string, string> = { [name]: value };
    assert.doesNotThrow(() => loadConfig((key) => env[key]), name);
  }
});

Deno.test("the README's configuration table has a row for every setting, and no other", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const start = readme.indexOf("## Configuration");
  const section = readme.slice(start, readme.indexOf("\n## ", start));
  const rows = [...section.matchAll(/^\| `([A-Z_]+)` +\|/gm)].map((match) => match[1]);
  assert.deepEqual([...rows].sort(), [...SETTINGS_ENV_VARS].sort());
});
