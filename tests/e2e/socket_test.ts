/** Sidecar use: SOCKET listens on a Unix domain socket instead of HOST/PORT. */
import assert from "node:assert/strict";
import { makeDataDir, removeDir, runUntilExit, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

/** A request over the Unix socket at `path`; the host in the URL is only the Host header. */
async function overSocket(
  path: string,
  pathname: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  try {
    const response = await fetch(`http://localhost${pathname}`, { ...init, client });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) };
  } finally {
    client.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function hasCurl(): Promise<boolean> {
  try {
    return (await new Deno.Command("curl", { args: ["--version"], stdout: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

Deno.test("SOCKET serves over a Unix socket with SOCKET_MODE, and SIGTERM removes the socket file", async () => {
  const dir = await makeDataDir();
  try {
    const socket = `${dir}/api.sock`;
    const server = await startServer({ env: { SOCKET: socket, SOCKET_MODE: "600" } });
    try {
      assert.equal(server.url, `unix:${socket}`);
      const info = await Deno.lstat(socket);
      assert.ok(info.isSocket, "not a socket");
      assert.equal(info.mode! & 0o777, 0o600);

      const token = await makeToken();
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const created = await overSocket(socket, "/api/customers", {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Sidecar Sam", email: "sam@socket.example" }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as { id: string }).id;
      const read = await overSocket(socket, `/api/customers/${id}`, { headers });
      assert.equal(read.status, 200);
      assert.equal((read.body as { email: string }).email, "sam@socket.example");

      if (await hasCurl()) {
        const curl = await new Deno.Command("curl", {
          args: [
            "-sS",
            "--unix-socket",
            socket,
            "-H",
            `Authorization: Bearer ${token}`,
            `http://localhost/api/customers/${id}`,
          ],
        }).output();
        assert.ok(curl.success, new TextDecoder().decode(curl.stderr));
        assert.equal(JSON.parse(new TextDecoder().decode(curl.stdout)).id, id);
      }
    } finally {
      const stopped = await server.stop("SIGTERM");
      assert.equal(stopped.code, 0, stopped.stderr);
      await server.dispose();
    }
    assert.equal(await exists(socket), false, "the socket file is still there");
  } finally {
    await removeDir(dir);
  }
});

Deno.test("a socket file left by a killed server is replaced at the next start", async () => {
  const dir = await makeDataDir();
  try {
    const socket = `${dir}/api.sock`;
    const dataDir = `${dir}/data`;
    const killed = await startServer({ dataDir, env: { SOCKET: socket } });
    await killed.stop("SIGKILL");
    assert.ok((await Deno.lstat(socket)).isSocket, "SIGKILL left no socket file to test with");

    await using _again = await startServer({ dataDir, env: { SOCKET: socket } });
    const health = await overSocket(socket, "/healthz");
    assert.equal(health.status, 200);
  } finally {
    await removeDir(dir);
  }
});

Deno.test("a SOCKET another server answers on is refused, and that server keeps serving", async () => {
  const dir = await makeDataDir();
  try {
    const socket = `${dir}/api.sock`;
    await using first = await startServer({ env: { SOCKET: socket } });
    const second = await runUntilExit({ env: { SOCKET: socket } });
    assert.equal(second.code, 78, second.stderr);
    assert.ok(
      second.stderr.startsWith(`customer-api cannot start: SOCKET "${socket}" is in use`),
      second.stderr,
    );
    assert.equal((await overSocket(socket, "/readyz")).status, 200);
    assert.equal(first.url, `unix:${socket}`);
  } finally {
    await removeDir(dir);
  }
});
