import assert from "node:assert/strict";
import { probe } from "../../docker/healthcheck.ts";
import { execForm, only, parseDockerfile } from "../support/dockerfile.ts";
import { startServer } from "../support/server.ts";

const ROOT = new URL("../../", import.meta.url);
const dockerfile = parseDockerfile(await Deno.readTextFile(new URL("Dockerfile", ROOT)));
const healthcheck = only(dockerfile, "HEALTHCHECK", "app").args;
const command = execForm(healthcheck);

/** Runs the HEALTHCHECK command exactly as the Dockerfile spells it, with PORT set. */
async function runHealthcheck(port: number): Promise<{ code: number; stderr: string }> {
  assert.equal(command[0], "deno");
  const env = Deno.env.toObject();
  const output = await new Deno.Command(Deno.execPath(), {
    args: command.slice(1),
    cwd: ROOT,
    env: { ...env, PORT: String(port), NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

Deno.test("the HEALTHCHECK may only reach loopback and read PORT", () => {
  assert.deepEqual(command, [
    "deno",
    "run",
    "--cached-only",
    "--no-prompt",
    "--allow-net=127.0.0.1",
    "--allow-env=PORT",
    "docker/healthcheck.ts",
  ]);
  assert.match(healthcheck, /--timeout=\d+s/);
  assert.match(healthcheck, /--start-period=\d+s/);
});

Deno.test("the HEALTHCHECK passes against a running server", async () => {
  await using server = await startServer();
  const result = await runHealthcheck(Number(new URL(server.url).port));
  assert.equal(result.code, 0, result.stderr);
});

Deno.test("the HEALTHCHECK fails on a non-2xx answer and when nothing listens", async () => {
  const unhealthy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("starting", { status: 503 }),
  );
  try {
    const result = await runHealthcheck(unhealthy.addr.port);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /unhealthy/);
  } finally {
    await unhealthy.shutdown();
  }
  // The port of the closed server is free now: nothing listens there.
  const closed = await runHealthcheck(unhealthy.addr.port);
  assert.equal(closed.code, 1);
});

Deno.test("probe answers false for a 3xx, not only for errors", async () => {
  const redirecting = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(null, { status: 304 }),
  );
  try {
    assert.equal(await probe(`http://127.0.0.1:${redirecting.addr.port}/healthz`), false);
  } finally {
    await redirecting.shutdown();
  }
});
