/**
 * A deployment as the README describes it: `deno task start` with DATA_DIR and JWKS_FILE wherever
 * the operator keeps them, and the ops tasks (`verify`, `compact`, `token`) run the same way.
 */
import assert from "node:assert/strict";
import { TOKEN_USAGE } from "../../src/cli/usage.ts";
import { ApiClient, type Customer, newCustomer } from "../support/api.ts";
import { logLines } from "../support/data_dir.ts";
import { REPO_ROOT, runDenoTask } from "../support/deno_task.ts";
import { keySetOf, newSigningKey, signWith } from "../support/jwks.ts";
import { removeDir, startServer } from "../support/server.ts";
import { makeToken, TEST_SECRET } from "../support/tokens.ts";

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

Deno.test("deno task start keeps its data and reads its keys in a directory outside the checkout whose path has a space", async () => {
  const root = await Deno.makeTempDir({ prefix: "customer-api deployment " });
  try {
    assert.ok(root.includes(" ") && !root.startsWith(REPO_ROOT), root);
    const key = await newSigningKey("ES256", "deploy-1");
    await Deno.mkdir(`${root}/config dir`);
    const jwksFile = `${root}/config dir/jwks.json`;
    await Deno.writeTextFile(jwksFile, JSON.stringify(keySetOf(key)));
    const settings = { DATA_DIR: `${root}/var data`, JWT_SECRET: "", JWKS_FILE: jwksFile };
    const token = await signWith(key);

    const first = await startServer({ dataDir: settings.DATA_DIR, env: settings });
    const api = new ApiClient(first.url, token);
    const written: Customer[] = [];
    for (let i = 0; i < 3; i++) written.push(await api.create(newCustomer()));
    const stopped = await first.stop("SIGTERM");
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.ok((await Deno.stat(`${root}/var data/log`)).isDirectory);

    await using second = await startServer({ dataDir: settings.DATA_DIR, env: settings });
    const again = new ApiClient(second.url, token);
    for (const customer of written) {
      const got = await again.get(`/api/customers/${customer.id}`);
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(got.body, customer);
    }
  } finally {
    await removeDir(root);
  }
});

Deno.test("a relative DATA_DIR is the directory under the one deno task runs in (the checkout)", async () => {
  const relative = `.e2e-relative-${crypto.randomUUID()}/data`;
  const absolute = `${REPO_ROOT}${relative}`;
  // The server creates DATA_DIR's last component only, as `mkdir` would: its parent is ours.
  await Deno.mkdir(`${REPO_ROOT}${relative.split("/")[0]}`);
  try {
    const settings = { DATA_DIR: relative };
    const first = await startServer({ dataDir: relative, env: settings });
    const customer = await new ApiClient(first.url, await makeToken()).create(newCustomer());
    assert.equal((await first.stop("SIGTERM")).code, 0);
    assert.ok((await Deno.stat(`${absolute}/log`)).isDirectory, `nothing written to ${absolute}`);

    await using second = await startServer({ dataDir: relative, env: settings });
    const got = await new ApiClient(second.url, await makeToken())
      .get(`/api/customers/${customer.id}`);
    assert.equal(got.status, 200, got.text);
  } finally {
    await removeDir(`${REPO_ROOT}${relative.split("/")[0]}`);
  }
});

Deno.test("verify, compact and token run through deno task on a DATA_DIR outside the checkout", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "customer-api ops " });
  try {
    const server = await startServer({ dataDir });
    await new ApiClient(server.url, await makeToken()).create(newCustomer());
    assert.equal((await server.stop("SIGKILL")).code, 137, "the launcher passes on the crash");

    await t.step("deno task verify says the log can be replayed", async () => {
      const verify = await runDenoTask("verify", [], { DATA_DIR: dataDir });
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /the log can be replayed/);
    });

    await t.step("deno task compact writes a snapshot", async () => {
      const compact = await runDenoTask("compact", [], { DATA_DIR: dataDir });
      assert.equal(compact.code, 0, compact.stdout + compact.stderr);
      assert.equal(logLines(compact.stdout, "compaction done").length, 1, compact.stdout);
    });

    await t.step("deno task token mints a token with JWT_SECRET", async () => {
      const token = await runDenoTask("token", [], { DATA_DIR: dataDir, JWT_SECRET: TEST_SECRET });
      assert.equal(token.code, 0, token.stderr);
      assert.match(token.stdout.trim(), JWT);
    });

    await t.step("deno task token --help prints its usage and no token", async () => {
      const help = await runDenoTask("token", ["--help"], { JWT_SECRET: TEST_SECRET });
      assert.equal(help.code, 0, help.stderr);
      assert.equal(help.stdout, `${TOKEN_USAGE}\n`);
      assert.doesNotMatch(help.stdout, /[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./, help.stdout);
    });
  } finally {
    await removeDir(dataDir);
  }
});
