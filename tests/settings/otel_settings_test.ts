import assert from "node:assert/strict";
import { otelSettings } from "../../src/settings/otel_settings.ts";
import { ConfigError } from "../../src/settings/config_error.ts";

const settings = (vars: Record<string, string>) => otelSettings((name) => vars[name]);

/** Whether Deno itself traces with OTEL_DENO set to `value`: is a span it starts recording? */
async function runtimeTraces(value: string): Promise<boolean> {
  const probe = `import { trace } from "@opentelemetry/api";
    console.log(trace.getTracer("probe").startSpan("probe").isRecording());`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", "tests/deno.json", probe],
    cwd: new URL("../../", import.meta.url),
    // An endpoint nothing listens on: the probe exports nowhere.
    env: { OTEL_DENO: value, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return new TextDecoder().decode(output.stdout).trim() === "true";
}

Deno.test("OTEL_DENO turns tracing on exactly when the runtime does: true in any case", async () => {
  for (const value of ["true", "TRUE", "True", "false", "FALSE", ""]) {
    const enabled = settings({ OTEL_DENO: value }).enabled;
    assert.equal(enabled, value.toLowerCase() === "true", value);
    assert.equal(await runtimeTraces(value), enabled, `the runtime with OTEL_DENO="${value}"`);
  }
  assert.equal(settings({}).enabled, false);
});

Deno.test("an OTEL_DENO the runtime would silently take as off (1, yes, on) is refused, quoting it", async () => {
  for (const value of ["1", "yes", "on"]) {
    assert.throws(() => settings({ OTEL_DENO: value }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(
        error.message,
        `OTEL_DENO "${value}" must be true or false (Deno traces only with OTEL_DENO=true)`,
      );
      return true;
    });
  }
  assert.equal(await runtimeTraces("1"), false, "the runtime does not trace with OTEL_DENO=1");
});

Deno.test("the exporter's variables are kept as written, for the startup line; empty is unset", () => {
  const vars = {
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=secret",
    OTEL_SERVICE_NAME: "",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
  };
  assert.deepEqual(settings(vars), {
    enabled: false,
    endpoint: "http://collector:4318",
    protocol: "http/json",
    headers: "x-api-key=secret",
    serviceName: undefined,
    resourceAttributes: "deployment.environment=test",
  });
});
