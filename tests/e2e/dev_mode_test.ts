/** Contract §1 development mode and `deno task token`, against the real server process. */
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { ApiClient, type ApiResponse, assertProblem, newCustomer } from "../support/api.ts";
import { keySetOf, newSigningKey } from "../support/jwks.ts";
import { runDenoTask } from "../support/deno_task.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken, TEST_SECRET } from "../support/tokens.ts";

const NO_KEY_SOURCE = { JWT_SECRET: "" };
const JWT = /[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

/** Runs `deno task token <args>` with only `env` as configuration. */
async function mintWithCli(args: string[], env: Record<string, string>) {
  const result = await runDenoTask("token", args, env);
  return { ...result, stdout: result.stdout.trim() };
}

function assertInsufficientScope(res: ApiResponse, scope: string): void {
  assertProblem(res, 403);
  assert.equal(
    res.headers.get("www-authenticate"),
    `Bearer realm="customers", error="insufficient_scope", scope="${scope}"`,
  );
}

Deno.test("with no key source the server creates a 0600 dev secret and prints a warning, a working token and a curl example", async (t) => {
  const dataDir = await makeDataDir();
  try {
    let printed = "";
    await t.step(
      "the first start creates DATA_DIR/dev-secret with mode 0600 and says so on stderr",
      async () => {
        const server = await startServer({ dataDir, env: NO_KEY_SOURCE });
        const { stderr } = await server.stop();
        const info = await Deno.stat(`${dataDir}/dev-secret`);
        assert.ok(info.isFile);
        assert.equal(info.mode! & 0o777, 0o600, `mode ${(info.mode! & 0o777).toString(8)}`);
        assert.ok((await Deno.readFile(`${dataDir}/dev-secret`)).length >= 32, "secret too short");
        assert.match(stderr, /WARNING/);
        assert.match(stderr, /development mode/i);
        const curl = /curl [^\n]*-H "Authorization: Bearer ([^"\s]+)"[^\n]*\/api\/customers/.exec(
          stderr,
        );
        assert.ok(curl, `no curl example on stderr:\n${stderr}`);
        printed = curl[1];
        assert.match(printed, JWT);
        assert.ok(stderr.split(printed).length >= 3, "the token is not printed on its own too");
        // The console link carries the token in the fragment, which the browser never sends.
        const link = /^Console \(signs in\): (http:\/\/\S+\/console)#token=(\S+)$/m.exec(stderr);
        assert.ok(link, `no console link on stderr:\n${stderr}`);
        assert.equal(link[2], printed);
        const claims = decodeJwt(printed);
        assert.deepEqual(
          String(claims.scope).split(" ").sort(),
          ["customers:read", "customers:write", "webhooks:manage"],
        );
        // The banner says what the token carries: its three scopes, by name.
        assert.match(
          stderr,
          /A token with every scope \(customers:read customers:write webhooks:manage\)/,
        );
        assert.doesNotMatch(stderr, /both scopes/);
        assert.ok(typeof claims.exp === "number" && claims.exp > Date.now() / 1000 + 3600);
      },
    );

    await t.step(
      "the printed token reads and writes, and the secret survives a restart",
      async () => {
        const before = await Deno.readTextFile(`${dataDir}/dev-secret`);
        await using server = await startServer({ dataDir, env: NO_KEY_SOURCE });
        const api = new ApiClient(server.url, printed);
        assert.equal((await api.get("/api/customers")).status, 200);
        const created = await api.post("/api/customers", { json: newCustomer() });
        assert.equal(created.status, 201, created.text);
        assert.equal(await Deno.readTextFile(`${dataDir}/dev-secret`), before);
        const forged = await makeToken({ secret: TEST_SECRET });
        assert.equal((await api.get("/api/customers", { token: forged })).status, 401);
      },
    );

    await t.step(
      "a token from `deno task token --scope customers:read --sub bob --ttl 5m` reads but cannot write",
      async () => {
        await using server = await startServer({ dataDir, env: NO_KEY_SOURCE });
        const cli = await mintWithCli(
          ["--scope", "customers:read", "--sub", "bob", "--ttl", "5m"],
          { DATA_DIR: dataDir },
        );
        assert.equal(cli.code, 0, cli.stderr);
        assert.match(cli.stdout, new RegExp(`^${JWT.source}$`));
        const claims = decodeJwt(cli.stdout);
        assert.equal(claims.sub, "bob");
        assert.equal(claims.scope, "customers:read");
        assert.equal(claims.exp! - claims.iat!, 300);
        const api = new ApiClient(server.url, cli.stdout);
        assert.equal((await api.get("/api/customers")).status, 200);
        assertInsufficientScope(
          await api.post("/api/customers", { json: newCustomer() }),
          "customers:write",
        );
      },
    );
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("`deno task token` mints with JWT_SECRET, issuer and audience that the server accepts", async () => {
  const env = { JWT_SECRET: TEST_SECRET, JWT_ISSUER: "https://idp.test/", JWT_AUDIENCE: "api" };
  await using server = await startServer({ env });
  const cli = await mintWithCli([], { ...env, DATA_DIR: server.dataDir });
  assert.equal(cli.code, 0, cli.stderr);
  const claims = decodeJwt(cli.stdout);
  assert.equal(claims.iss, env.JWT_ISSUER);
  assert.equal(claims.aud, env.JWT_AUDIENCE);
  const api = new ApiClient(server.url, cli.stdout);
  assert.equal((await api.get("/api/customers")).status, 200);
  assert.equal((await api.post("/api/customers", { json: newCustomer() })).status, 201);
});

Deno.test("`deno task token` refuses to mint for a key set and says why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "customer-api-token-" });
  try {
    const jwksFile = `${dir}/jwks.json`;
    await Deno.writeTextFile(jwksFile, JSON.stringify(keySetOf(await newSigningKey("ES256", "k"))));
    const keySets: Record<string, string>[] = [
      { JWKS_FILE: jwksFile },
      { JWKS_URL: "https://idp.example/jwks" },
    ];
    for (const env of keySets) {
      const cli = await mintWithCli([], { ...env, DATA_DIR: dir });
      assert.notEqual(cli.code, 0);
      assert.equal(cli.stdout, "", "printed something that looks like a token");
      assert.match(cli.stderr, /key set/i);
      assert.match(cli.stderr, /identity provider/i);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`deno task token` without JWT_SECRET or a dev secret fails and says how to get one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "customer-api-token-" });
  try {
    const cli = await mintWithCli([], { DATA_DIR: dir });
    assert.notEqual(cli.code, 0);
    assert.equal(cli.stdout, "");
    assert.match(cli.stderr, /dev-secret/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
