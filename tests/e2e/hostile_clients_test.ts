/** Issue 12: clients that hold connections or send slowly must neither kill nor stall the server. */
import assert from "node:assert/strict";
import { startServer } from "../support/server.ts";
import { authHeaders, makeToken } from "../support/tokens.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A parsed HTTP/1.1 response read from a raw connection. */
interface RawResponse {
  status: number;
  head: string;
  body: string;
}

function connect(url: string): Promise<Deno.TcpConn> {
  const { hostname, port } = new URL(url);
  return Deno.connect({ hostname, port: Number(port) });
}

/** Reads one response with a Content-Length body, or fails after `timeoutMs`. */
async function readResponse(conn: Deno.Conn, timeoutMs: number): Promise<RawResponse> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No response within ${timeoutMs} ms`)), timeoutMs);
  });
  const read = async (): Promise<RawResponse> => {
    let text = "";
    const buffer = new Uint8Array(16_384);
    while (true) {
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const head = text.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (text.length >= end + 4 + length) {
          return { status: Number(head.split(" ")[1]), head, body: text.slice(end + 4) };
        }
      }
      const n = await conn.read(buffer);
      if (n === null) throw new Error(`Connection closed after ${JSON.stringify(text)}`);
      text += decoder.decode(buffer.subarray(0, n));
    }
  };
  try {
    return await Promise.race([read(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function get(conn: Deno.Conn, path: string, timeoutMs = 5000): Promise<RawResponse> {
  await conn.write(encoder.encode(`GET ${path} HTTP/1.1\r\nhost: test\r\n\r\n`));
  return await readResponse(conn, timeoutMs);
}

/** A request on a connection opened now: proves the server accepts new connections. */
async function getOnNewConnection(url: string, path: string): Promise<RawResponse> {
  const conn = await connect(url);
  try {
    return await get(conn, path, 1000);
  } finally {
    conn.close();
  }
}

Deno.test("with its open-file limit reached the server keeps serving and accepts again once connections close", async () => {
  await using server = await startServer({ openFileLimit: 160 });
  const keptAlive = await connect(server.url);
  assert.equal((await get(keptAlive, "/healthz")).status, 200);

  // More silent connections than the limit allows: the server's accept fails with EMFILE.
  const silent: Deno.Conn[] = [];
  let refused = 0;
  for (let i = 0; i < 250; i++) {
    try {
      silent.push(await connect(server.url));
    } catch {
      refused++;
    }
  }
  assert.ok(silent.length > 0, `all ${refused} connections were refused`);
  try {
    // The server accepts behind the kernel's backlog: give it a moment to reach the limit.
    let restarts = 0;
    for (let tries = 0; restarts === 0 && tries < 20; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const metrics = await get(keptAlive, "/metrics");
      assert.equal(metrics.status, 200, "an open connection is served while descriptors are out");
      restarts = Number(/^listener_restarts_total (\d+)$/m.exec(metrics.body)?.[1]);
    }
    assert.ok(restarts >= 1, `the limit was never reached (listener_restarts_total ${restarts})`);
  } finally {
    for (const conn of silent) conn.close();
  }

  const closed = performance.now();
  let answer: RawResponse | undefined;
  while (answer === undefined && performance.now() - closed < 2000) {
    answer = await getOnNewConnection(server.url, "/healthz").catch(() => undefined);
    if (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(answer?.status, 200, "no answer on a new connection within 2 s");
  keptAlive.close();
  const stopped = await server.stop();
  assert.equal(stopped.code, 0, `the server exited on its own:\n${stopped.stderr}`);
  assert.doesNotMatch(stopped.stderr, /Uncaught/);
  assert.match(stopped.stdout, /"msg":"Accepting connections failed; serving the open ones/);
});

Deno.test("BODY_TIMEOUT=1s", async (t) => {
  await using server = await startServer({ env: { BODY_TIMEOUT: "1s" } });
  const headers = authHeaders(await makeToken());
  const auth = `authorization: ${headers.authorization}\r\n`;

  /** Sends `head`, then one `piece` every 200 ms until the answer comes; returns it and its time. */
  async function trickle(head: string, piece: string) {
    const conn = await connect(server.url);
    const started = performance.now();
    await conn.write(encoder.encode(head));
    let answered = false;
    const sending = (async () => {
      while (!answered) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (!answered) await conn.write(encoder.encode(piece)).catch(() => {});
      }
    })();
    try {
      const response = await readResponse(conn, 5000);
      return { response, ms: performance.now() - started };
    } finally {
      answered = true;
      await sending;
      conn.close();
    }
  }

  const assertTimedOut = (response: RawResponse, ms: number) => {
    assert.equal(response.status, 408, response.head);
    assert.match(response.head, /\r\ncontent-type: application\/problem\+json/i);
    const problem = JSON.parse(response.body);
    assert.equal(problem.type, "urn:problem-type:customer-api:body-timeout");
    assert.equal(problem.detail, "The request body did not arrive within 1000 ms");
    assert.ok(ms >= 900 && ms < 3000, `answered after ${Math.round(ms)} ms`);
  };

  await t.step("a body trickling at 5 bytes/s is answered 408 within the timeout", async () => {
    const head = `POST /api/customers HTTP/1.1\r\nhost: test\r\n${auth}` +
      "content-type: application/json\r\ncontent-length: 100\r\n\r\n{";
    const normal = fetch(`${server.url}/healthz`);
    const { response, ms } = await trickle(head, " ");
    assertTimedOut(response, ms);
    assert.equal((await normal).status, 200, "a normal client is answered meanwhile");
  });

  await t.step("a chunked body trickling one chunk per 200 ms is answered 408 too", async () => {
    const head = `POST /api/customers HTTP/1.1\r\nhost: test\r\n${auth}` +
      "content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n";
    const { response, ms } = await trickle(head, "1\r\n \r\n");
    assertTimedOut(response, ms);
  });

  await t.step(
    "a body that arrives in time is unaffected and the timeout created nothing",
    async () => {
      const res = await fetch(`${server.url}/api/customers`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ name: "On Time", email: "on.time@example.com" }),
      });
      assert.equal(res.status, 201, await res.text());
      const list = await fetch(`${server.url}/api/customers`, { headers });
      assert.equal((await list.json()).data.length, 1);
    },
  );
});
