import assert from "node:assert/strict";
import { probe } from "../../docker/healthcheck.ts";
import { execForm, only, parseDockerfile } from "../support/dockerfile.ts";
import { startServer } from "../support/server.ts";

const ROOT = new URL("../../", import.meta.url);
const dockerfile = parseDockerfile(await Deno.readTextFile(new URL("Dockerfile", ROOT)));
const healthcheck = only(dockerfile, "HEALTHCHECK", "app").args;
const command = execForm(healthcheck);

/** Runs the HEALTHCHECK command exactly as the Dockerfile spells it, with PORT (or SOCKET) set. */
async function runHealthcheck(
  port: number,
  socket?: string,
): Promise<{ code: number; stderr: string }> {
  assert.equal(command[0], "sh");
  const env = Deno.env.toObject();
  delete env.SOCKET;
  // The image has deno on PATH; here it is the deno running the tests.
  const path = `${Deno.execPath().replace(/\/[^/]*$/, "")}:${env.PATH ?? "/usr/bin:/bin"}`;
  const output = await new Deno.Command(command[0], {
    args: command.slice(1),
    cwd: ROOT,
    env: {
      ...env,
      PATH: path,
      PORT: String(port),
      ...(socket === undefined ? {} : { SOCKET: socket }),
      NO_COLOR: "1",
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

Deno.test("the HEALTHCHECK may only reach loopback (or SOCKET) and read PORT and SOCKET", () => {
  assert.deepEqual(command, [
    "sh",
    "-c",
    "set -f; IFS=; exec deno run --cached-only --no-prompt --allow-env=PORT,SOCKET " +
    "--allow-net=127.0.0.1${SOCKET:+,unix:$SOCKET} " +
    "${SOCKET:+--allow-read=$SOCKET} ${SOCKET:+--allow-write=$SOCKET} docker/healthcheck.ts",
  ]);
  assert.match(healthcheck, /--timeout=\d+s/);
  assert.match(healthcheck, /--start-period=\d+s/);
});

Deno.test("the HEALTHCHECK passes against a running server", async () => {
  await using server = await startServer();
  const result = await runHealthcheck(Number(new URL(server.url).port));
  assert.equal(result.code, 0, result.stderr);
});

Deno.test("in socket mode the HEALTHCHECK probes /healthz over SOCKET, even one with a space in its path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "customer-api healthcheck " });
  try {
    const socket = `${dir}/api.sock`;
    const server = await startServer({ env: { SOCKET: socket } });
    try {
      const result = await runHealthcheck(1, socket);
      assert.equal(result.code, 0, result.stderr);
    } finally {
      await server.dispose();
    }
    const gone = await runHealthcheck(1, socket);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /unhealthy: GET \/healthz on socket/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
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
