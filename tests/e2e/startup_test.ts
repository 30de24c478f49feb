/** Contract §1 and §7: the startup order, /readyz while replaying, the startup lines, signals. */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { writeEventLog } from "../../bench/support/event_log_fixture.ts";
import { SETTINGS_ENV_VARS } from "../../src/ops/permissions.ts";
import { ApiClient, assertProblem } from "../support/api.ts";
import { logLines } from "../support/data_dir.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken, TEST_SECRET } from "../support/tokens.ts";

const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/** Enough events that their replay takes a second or more, so requests can land during it. */
const SLOW_REPLAY_EVENTS = 150_000;

Deno.test("while the log replays /healthz answers 200, /readyz and the API 503 starting with Retry-After; then the API serves", async () => {
  const dataDir = await makeDataDir();
  try {
    const fixture = await writeEventLog(dataDir, SLOW_REPLAY_EVENTS);
    await using server = await startServer({ dataDir, until: "listening" });
    const api = new ApiClient(server.url, await makeToken());

    const readyz = await api.get("/readyz");
    assertProblem(readyz, 503);
    assert.equal(readyz.body.type, "urn:problem-type:customer-api:starting");
    assert.match(readyz.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
    const healthz = await api.get("/healthz");
    assert.equal(healthz.status, 200, healthz.text);
    // Plain fetch: the OpenAPI document lists 503 `starting` on /readyz, not on every route.
    const list = await fetch(`${server.url}/api/customers`, {
      headers: { authorization: `Bearer ${api.token}` },
    });
    const problem = await list.json();
    assert.equal(list.status, 503);
    assert.match(list.headers.get("content-type") ?? "", /^application\/problem\+json/);
    assert.equal(problem.type, "urn:problem-type:customer-api:starting");
    assert.ok(list.headers.get("retry-after"), "no Retry-After on the API's 503");
    // Log-Seq on every API answer, this 503 too: the seq applied so far (0 before any).
    const seq = list.headers.get("log-seq");
    assert.match(seq ?? "", /^\d+$/, "no Log-Seq on the 503 starting");
    assert.ok(Number(seq) < fixture.events, `Log-Seq ${seq} while replaying`);
    assert.equal(readyz.headers.get("log-seq"), null, "only the API paths carry it");

    let ready = readyz;
    for (let i = 0; i < 600 && ready.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ready = await api.get("/readyz");
    }
    assert.equal(ready.status, 200, `still not ready after 60 s: ${ready.text}`);
    const page = await api.get("/api/customers?limit=1");
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.data.length, 1);

    const stopped = await server.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    const [replayed] = logLines(stopped.stdout, "replay done");
    assert.equal(replayed.events, fixture.events);
    assert.equal(replayed.customers, fixture.live);
    const order = stopped.stdout.split("\n").flatMap((line) => {
      const msg = line.startsWith("{") ? JSON.parse(line).msg : undefined;
      return ["configuration", "listening", "replay done", "ready"].includes(msg) ? [msg] : [];
    });
    assert.deepEqual(order, ["configuration", "listening", "replay done", "ready"]);
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("the configuration line names every setting, paths absolute, and shows a secret only as its length", async () => {
  await using server = await startServer({
    env: { RATE_LIMIT: "50/s", CORS_ORIGINS: "https://app.example.com", LOG_LEVEL: "info" },
  });
  const stopped = await server.stop();
  const lines = logLines(stopped.stdout, "configuration");
  assert.equal(lines.length, 1, stopped.stdout);
  const config = lines[0];
  for (const name of SETTINGS_ENV_VARS) {
    assert.ok(
      name.toLowerCase() in config,
      `no ${name.toLowerCase()} in ${JSON.stringify(config)}`,
    );
  }
  assert.equal(config.data_dir, await Deno.realPath(server.dataDir));
  assert.equal(config.key_source, "JWT_SECRET");
  assert.equal(config.jwt_secret, `set (${TEST_SECRET.length} bytes)`);
  assert.equal(config.rate_limit, "50/s");
  assert.deepEqual(config.cors_origins, ["https://app.example.com"]);
  assert.ok(!stopped.stdout.includes(TEST_SECRET), "the secret is in the log");
  assert.ok(!stopped.stderr.includes(TEST_SECRET), "the secret is on stderr");
});

Deno.test("a relative DATA_DIR is shown absolute, and only its missing last component is created", async () => {
  const parent = await makeDataDir();
  try {
    // The server runs in the repository root; the path leads from there to the temp directory.
    const relativeDir = relative(REPO_ROOT, `${parent}/fresh`);
    assert.ok(relativeDir.startsWith(".."), relativeDir);
    await using server = await startServer({ dataDir: parent, env: { DATA_DIR: relativeDir } });
    const stopped = await server.stop();
    const [config] = logLines(stopped.stdout, "configuration");
    assert.equal(config.data_dir, `${await Deno.realPath(parent)}/fresh`);
    assert.ok((await Deno.stat(`${parent}/fresh/log`)).isDirectory);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("bound to 0.0.0.0 the banner and the dev-mode curl example show http://localhost:<port>", async () => {
  await using server = await startServer({ env: { HOST: "0.0.0.0", JWT_SECRET: "" } });
  const stopped = await server.stop();
  const [listening] = logLines(stopped.stdout, "listening");
  const port = listening.address.split(":").at(-1);
  assert.equal(listening.address, `0.0.0.0:${port}`);
  assert.equal(listening.url, `http://localhost:${port}`);
  assert.equal(logLines(stopped.stdout, "ready")[0].url, `http://localhost:${port}`);
  assert.match(stopped.stderr, new RegExp(`curl -H .* http://localhost:${port}/api/customers`));
  assert.doesNotMatch(stopped.stdout + stopped.stderr, /0\.0\.0\.0:\d+\/api/);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`${signal} stops the server with exit code 0`, async () => {
    await using server = await startServer();
    const stopped = await server.stop(signal);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(logLines(stopped.stdout, "shutting down")[0].signal, signal);
    assert.equal(logLines(stopped.stdout, "stopped").length, 1);
  });
}

Deno.test("SIGTERM during the replay exits 0 at once, and the next start replays everything", async () => {
  const dataDir = await makeDataDir();
  try {
    const fixture = await writeEventLog(dataDir, SLOW_REPLAY_EVENTS);
    const first = await startServer({ dataDir, until: "listening" });
    const stopped = await first.stop("SIGTERM");
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(logLines(stopped.stdout, "ready").length, 0, "it finished the replay first");
    await using second = await startServer({ dataDir });
    const again = await second.stop();
    assert.equal(logLines(again.stdout, "replay done")[0].events, fixture.events);
  } finally {
    await removeDir(dataDir);
  }
});
