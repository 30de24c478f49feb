/** Contract §7 and issue 5 point 5: JSON lines on stdout, no token or personal data, LOG_LEVEL. */
import assert from "node:assert/strict";
import { ApiClient, type ApiResponse, type RequestOptions, UNKNOWN_ID } from "../support/api.ts";
import { denoTask, userEnv } from "../support/deno_task.ts";
import { runUntilExit, startServer } from "../support/server.ts";
import { makeToken, TEST_SECRET } from "../support/tokens.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LEVELS = ["debug", "info", "warn", "error"];
const ULID_IN_TEXT = /[0-7][0-9A-HJKMNP-TV-Z]{25}/;
const MERGE_PATCH = "application/merge-patch+json";
const ONE = "/api/customers/:id";
const ALL = "/api/customers";

/** Two customers whose every value is distinctive enough to be found by a plain substring search. */
const ZEBULON = {
  name: "Zebulon Quartermaine-Oyelaran",
  email: "zebulon.quartermaine@logtest-pii.example",
  phone: "+4915112345678",
  address: {
    line1: "Mauerstrasse 77b Hinterhof",
    line2: "Seitenfluegel Dachgeschoss",
    city: "Wolfenbuettelheim",
    region: "Niedersachsenmark",
    postal_code: "PLZ-38300-QX",
    country: "DE",
  },
  metadata: { crm_id: "CRM-QX-99817", preference: "prefers-carrier-pigeon-delivery" },
};
const PERPETUA = {
  name: "Perpetua Ximenez-Wolstenholme",
  email: "perpetua.ximenez@logtest-pii.example",
  phone: "+81312349876",
  address: {
    line1: "Kagurazaka Heights 4-12",
    line2: null,
    city: "Shinjukuvillage",
    region: "Kantoprefecturezone",
    postal_code: "JP-162-0825-Z",
    country: "JP",
  },
  metadata: { loyalty_code: "LOYAL-ZZ-4471-Q" },
};
/** Values the server only ever sees in requests it refuses or in later changes. */
const OTHER_PII = {
  patchedName: "Cornelius Abernathy-Fairweather",
  patchedPhone: "+33142685300",
  patchedMetadata: "vip-since-nineteen-ninety-nine",
  replacedCity: "Trondheimsfjordby",
  invalidName: "Ophelia Vandersloot-Kirchner",
  invalidEmail: "ophelia.not-an-address",
  duplicateName: "Bartholomew Duplicate-Sender",
  malformedName: "Maximilian Brokenjson-Treadwell",
  unsupportedEmail: "textplain.sender@logtest-pii.example",
  forbiddenEmail: "readonly.writer@logtest-pii.example",
  staleName: "Henrietta Stalewrite-Okonkwo",
  queryEmail: "searched.person@logtest-pii.example",
  querySubstring: "Quartermaine",
  bogusTokenName: "Ignatius Wrongkey-Pemberton",
};

/** A request as the client saw it, to be found again in the log. */
interface Seen {
  requestId: string;
  method: string;
  route: string;
  status: number;
}

/** Every string value inside `value`, depth first. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(strings);
}

function parseLines(stdout: string): Record<string, unknown>[] {
  const lines = stdout.split("\n");
  assert.equal(lines.pop(), "", "stdout ends with a newline");
  return lines.map((line, index) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      assert.fail(`stdout line ${index + 1} is not JSON: ${line}`);
    }
    assert.ok(
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed),
      `stdout line ${index + 1} is not a JSON object: ${line}`,
    );
    const entry = parsed as Record<string, unknown>;
    assert.match(String(entry.time), ISO_TIME, `time of line ${index + 1}: ${line}`);
    assert.ok(LEVELS.includes(String(entry.level)), `level of line ${index + 1}: ${line}`);
    assert.equal(typeof entry.msg, "string", `msg of line ${index + 1}: ${line}`);
    return entry;
  });
}

Deno.test("a full run logs one JSON object per line, every request with its id, and no personal data or token", async () => {
  const server = await startServer();
  const token = await makeToken({ sub: "logging-e2e-writer" });
  const readOnly = await makeToken({ sub: "logging-e2e-reader", scope: "customers:read" });
  const bogus = await makeToken({ secret: "a-wrong-secret-that-the-server-does-not-know-0123" });
  const api = new ApiClient(server.url, token);
  const seen: Seen[] = [];
  let sent = 0;
  const call = async (
    method: string,
    path: string,
    route: string,
    status: number,
    options: RequestOptions = {},
  ): Promise<ApiResponse> => {
    // Every other request brings its own id, so both the echoed and the generated kind are checked.
    const headers = { ...options.headers };
    if (sent++ % 2 === 0) headers["x-request-id"] = `logging-e2e-${sent}`;
    const res = await api.request(method, path, { ...options, headers });
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    const requestId = res.headers.get("x-request-id");
    assert.ok(requestId !== null, `${method} ${path}: no X-Request-Id`);
    if (headers["x-request-id"] !== undefined) assert.equal(requestId, headers["x-request-id"]);
    seen.push({ requestId, method, route, status });
    return res;
  };

  let stopped;
  try {
    const z = (await call("POST", ALL, ALL, 201, { json: ZEBULON })).body;
    const p = (await call("POST", ALL, ALL, 201, {
      json: PERPETUA,
      headers: { "idempotency-key": "logging-e2e-key-1" },
    })).body;
    const replay = await call("POST", ALL, ALL, 201, {
      json: PERPETUA,
      headers: { "idempotency-key": "logging-e2e-key-1" },
    });
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(replay.body.id, p.id);
    await call("GET", `/api/customers/${z.id}`, ONE, 200);
    await call("HEAD", `/api/customers/${z.id}`, ONE, 200);
    await call("GET", `/api/customers/${z.id}`, ONE, 304, { headers: { "if-none-match": '"1"' } });
    await call("PATCH", `/api/customers/${z.id}`, ONE, 200, {
      json: {
        name: OTHER_PII.patchedName,
        phone: OTHER_PII.patchedPhone,
        metadata: { note: OTHER_PII.patchedMetadata },
      },
      contentType: MERGE_PATCH,
      headers: { "if-match": '"1"' },
    });
    await call("PUT", `/api/customers/${p.id}`, ONE, 200, {
      json: { ...PERPETUA, address: { ...PERPETUA.address, city: OTHER_PII.replacedCity } },
    });
    await call("GET", `/api/customers?email=${encodeURIComponent(OTHER_PII.queryEmail)}`, ALL, 200);
    await call("GET", `/api/customers?q=${OTHER_PII.querySubstring}&limit=1`, ALL, 200);
    await call("GET", `/api/customers?limit=0`, ALL, 400);
    await call("POST", ALL, ALL, 422, {
      json: { name: OTHER_PII.invalidName, email: OTHER_PII.invalidEmail },
    });
    await call("POST", ALL, ALL, 409, {
      json: { name: OTHER_PII.duplicateName, email: ZEBULON.email },
    });
    await call("POST", ALL, ALL, 400, {
      body: `{"name":"${OTHER_PII.malformedName}","email":`,
      contentType: "application/json",
    });
    await call("POST", ALL, ALL, 415, {
      body: JSON.stringify({ name: "T", email: OTHER_PII.unsupportedEmail }),
      contentType: "text/plain",
    });
    await call("POST", ALL, ALL, 403, {
      json: { name: "R", email: OTHER_PII.forbiddenEmail },
      token: readOnly,
    });
    await call("POST", ALL, ALL, 401, {
      json: { name: OTHER_PII.bogusTokenName, email: "bogus@logtest-pii.example" },
      token: bogus,
    });
    await call("GET", ALL, ALL, 401, { token: null });
    await call("PUT", `/api/customers/${p.id}`, ONE, 412, {
      json: { name: OTHER_PII.staleName, email: PERPETUA.email },
      headers: { "if-match": '"1"' },
    });
    await call("GET", `/api/customers/${UNKNOWN_ID}`, ONE, 404);
    await call("DELETE", ALL, ALL, 405);
    await call("GET", `/api/nothing/${z.email}`, "unmatched", 404);
    await call("DELETE", `/api/customers/${z.id}`, ONE, 204);
    await call("GET", `/api/customers/${z.id}`, ONE, 404);
    await call("GET", "/healthz", "/healthz", 200, { token: null });
  } finally {
    stopped = await server.stop();
    await server.dispose();
  }
  assert.equal(stopped.code, 0, stopped.stderr);
  const entries = parseLines(stopped.stdout);

  // startServer polls /readyz until it answers 200; those requests are the harness's, not ours.
  const requestLines = entries.filter((entry) => entry.msg === "request")
    .filter((entry) => entry.route !== "/readyz");
  assert.equal(requestLines.length, seen.length, "one request line per request");
  for (const expected of seen) {
    const matching = requestLines.filter((entry) => entry.request_id === expected.requestId);
    assert.equal(matching.length, 1, `request id ${expected.requestId} logged once`);
    const { time: _time, duration_ms, ...rest } = matching[0];
    assert.deepEqual(rest, {
      level: "info",
      msg: "request",
      request_id: expected.requestId,
      method: expected.method,
      route: expected.route,
      status: expected.status,
    });
    assert.ok(typeof duration_ms === "number" && duration_ms >= 0, `duration_ms ${duration_ms}`);
  }
  for (const entry of requestLines) {
    assert.doesNotMatch(
      String(entry.route),
      ULID_IN_TEXT,
      "the route is the pattern, not the path",
    );
  }

  const lifecycle = [
    "listening",
    "replay done",
    "ready",
    "shutting down",
    "compaction done",
    "stopped",
  ];
  const positions = lifecycle.map((msg) => {
    const found = entries.flatMap((entry, index) => entry.msg === msg ? [index] : []);
    assert.equal(found.length, 1, `one "${msg}" line in:\n${stopped.stdout}`);
    return found[0];
  });
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), "lifecycle lines in order");
  const replayDone = entries[positions[1]];
  assert.equal(replayDone.events, 0);
  assert.equal(replayDone.customers, 0);
  assert.equal(typeof replayDone.ms, "number");
  assert.equal(entries[positions[0]].url, server.url);
  assert.equal(entries[positions[2]].url, server.url);
  assert.equal(entries[positions[3]].signal, "SIGTERM");

  const everything = (stopped.stdout + stopped.stderr).toLowerCase();
  const secrets = [
    ...strings(ZEBULON),
    ...strings(PERPETUA),
    ...strings(OTHER_PII),
    token,
    readOnly,
    bogus,
    TEST_SECRET,
  ];
  for (const secret of secrets) {
    // Two-letter country codes are searched as JSON strings: bare, they occur inside any word.
    const needle = (secret.length < 4 ? JSON.stringify(secret) : secret).toLowerCase();
    assert.ok(!everything.includes(needle), `the log holds "${secret}"`);
  }
  for (const jwt of [token, readOnly, bogus]) {
    const signature = jwt.split(".")[2];
    assert.ok(!everything.includes(signature.toLowerCase()), "the log holds a token signature");
  }
});

Deno.test("an invalid LOG_LEVEL refuses to start and names the allowed levels", async () => {
  const result = await runUntilExit({ env: { LOG_LEVEL: "verbose" } });
  assert.equal(result.code, 78, result.stderr);
  assert.equal(
    result.stderr.trim(),
    'customer-api cannot start: LOG_LEVEL "verbose" must be debug, info, warn or error',
  );
  assert.ok(!result.stdout.includes('"msg":"listening"'), result.stdout);
});

Deno.test("with LOG_LEVEL=warn the server still prints the URL it listens on (contract §1)", async () => {
  await using server = await startServer({ env: { LOG_LEVEL: "warn" } });
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

/** A free TCP port on loopback, for a server whose startup line may not be printed. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("LOG_LEVEL=warn keeps warnings and the listening and ready lines, and drops request and other info lines", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "customer-api-e2e-" });
  // Development mode with a known secret: its startup warning is a line that must survive.
  const devSecret = "logging-e2e-dev-secret-0123456789-abcdefghij";
  await Deno.writeTextFile(`${dataDir}/dev-secret`, `${devSecret}\n`, { mode: 0o600 });
  const port = freePort();
  const env = { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  const child = denoTask("start", [], userEnv(env)).spawn();
  const output = child.output();
  try {
    const base = `http://127.0.0.1:${port}`;
    let up = false;
    for (let i = 0; i < 400 && !up; i++) {
      up = await fetch(`${base}/readyz`).then(async (res) => {
        await res.body?.cancel();
        return res.ok;
      }, () => false);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(up, "the server answered /readyz within 20 s");
    const api = new ApiClient(base, await makeToken({ secret: devSecret, sub: "warn-level" }));
    await api.create({ name: "Warn Level", email: "warn.level@logtest-pii.example" });
    assert.equal((await api.get("/api/customers")).status, 200);
    assert.equal((await api.get(`/api/customers/${UNKNOWN_ID}`)).status, 404);
  } finally {
    child.kill("SIGTERM");
  }
  const { code, stdout } = await output;
  await Deno.remove(dataDir, { recursive: true });
  assert.equal(code, 0);
  const entries = parseLines(new TextDecoder().decode(stdout));
  assert.deepEqual(
    entries.map((entry) => [entry.level, entry.msg]),
    [
      ["warn", "development mode: no JWT_SECRET, JWKS_FILE or JWKS_URL is set"],
      ["info", "listening"],
      ["info", "ready"],
    ],
  );
});
