import assert from "node:assert/strict";
import { type Config, loadConfig } from "../../src/config.ts";
import {
  LAUNCHER_FLAGS,
  PermissionPathError,
  SERVER_ENV_VARS,
  serverPermissionFlags,
} from "../../src/ops/permissions.ts";
import { execForm, only, parseDockerfile } from "../support/dockerfile.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const ROOT = new URL("../../", import.meta.url);
const ENV_FLAG = `--allow-env=${SERVER_ENV_VARS.join(",")}`;

/** The configuration `env` describes, with a secret key source unless `env` names another. */
function configOf(env: Record<string, string>): Config {
  return loadConfig((name) => ({ JWT_SECRET: TEST_SECRET, ...env })[name]);
}

Deno.test("an absolute DATA_DIR is the one path read and written, besides network and env", () => {
  assert.deepEqual(serverPermissionFlags(configOf({ DATA_DIR: "/var/lib/customer-api" }), "/srv"), [
    "--no-prompt",
    "--allow-net",
    ENV_FLAG,
    "--allow-read=/var/lib/customer-api",
    "--allow-write=/var/lib/customer-api",
  ]);
});

Deno.test("a relative or default DATA_DIR is made absolute against the working directory", () => {
  const flags = (env: Record<string, string>) =>
    serverPermissionFlags(configOf(env), "/home/ann/api").slice(3);
  assert.deepEqual(flags({}), [
    "--allow-read=/home/ann/api/data",
    "--allow-write=/home/ann/api/data",
  ]);
  assert.deepEqual(flags({ DATA_DIR: "../state/db/" }), [
    "--allow-read=/home/ann/state/db",
    "--allow-write=/home/ann/state/db",
  ]);
});

Deno.test("a path with spaces stays one flag, spaces and all", () => {
  const flags = serverPermissionFlags(configOf({ DATA_DIR: "my data" }), "/tmp/a b");
  assert.deepEqual(flags.slice(3), [
    "--allow-read=/tmp/a b/my data",
    "--allow-write=/tmp/a b/my data",
  ]);
});

Deno.test("a JWKS_FILE is read, never written; a JWKS_URL or JWT_SECRET adds no path", () => {
  const jwks = configOf({ JWT_SECRET: "", JWKS_FILE: "keys/jwks.json", DATA_DIR: "/d" });
  assert.deepEqual(serverPermissionFlags(jwks, "/etc/api").slice(3), [
    "--allow-read=/d,/etc/api/keys/jwks.json",
    "--allow-write=/d",
  ]);
  const url = configOf({ JWT_SECRET: "", JWKS_URL: "https://idp.example/jwks", DATA_DIR: "/d" });
  assert.deepEqual(serverPermissionFlags(url, "/").slice(3), [
    "--allow-read=/d",
    "--allow-write=/d",
  ]);
});

Deno.test("a SOCKET is read and written, as Deno.serve on a Unix socket needs", () => {
  const config = configOf({ DATA_DIR: "/d", SOCKET: "run/api.sock" });
  assert.deepEqual(serverPermissionFlags(config, "/srv").slice(3), [
    "--allow-read=/d,/srv/run/api.sock",
    "--allow-write=/d,/srv/run/api.sock",
  ]);
});

Deno.test("a path with a comma is refused, naming the variable and the value", () => {
  const cases: [Record<string, string>, string][] = [
    [{ DATA_DIR: "/srv/a,b" }, 'DATA_DIR "/srv/a,b"'],
    [{ JWT_SECRET: "", JWKS_FILE: "/keys/a,b.json" }, 'JWKS_FILE "/keys/a,b.json"'],
    [{ SOCKET: "/run/a,b.sock" }, 'SOCKET "/run/a,b.sock"'],
  ];
  for (const [env, named] of cases) {
    assert.throws(
      () => serverPermissionFlags(configOf(env), "/"),
      (error) => error instanceof PermissionPathError && error.message.startsWith(named),
    );
  }
});

Deno.test("--allow-env names every variable the server reads, and no other", async () => {
  const read = new Set<string>();
  const record = (vars: Record<string, string>) => (name: string) => {
    read.add(name);
    return vars[name];
  };
  // Each key source once, with every optional feature on, so conditional reads happen too.
  const features = {
    RATE_LIMIT: "100/s",
    RATE_LIMIT_BURST: "10",
    CORS_ORIGINS: "https://a.example",
  };
  const sources: Record<string, string>[] = [
    {},
    { JWT_SECRET: TEST_SECRET },
    { JWKS_FILE: "/config/jwks.json" },
    { JWKS_URL: "https://idp.example/jwks" },
  ];
  for (const source of sources) loadConfig(record({ ...source, ...features }));
  for (const name of await literalEnvReads()) read.add(name);
  const allowed = new Set<string>(SERVER_ENV_VARS);
  assert.deepEqual([...read].filter((name) => !allowed.has(name)).sort(), [], "read, not allowed");
  assert.deepEqual([...allowed].filter((name) => !read.has(name)).sort(), [], "allowed, not read");
});

/** Names in `Deno.env.get("X")` and `env("X")`/`f(env, "X")` in the modules main.ts imports. */
async function literalEnvReads(): Promise<string[]> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "src/main.ts"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  assert.equal(info.code, 0, "deno info failed");
  const modules: { specifier: string }[] =
    JSON.parse(new TextDecoder().decode(info.stdout)).modules;
  const local = modules.map((m) => m.specifier).filter((s) => s.startsWith(`${ROOT.href}src/`));
  assert.ok(local.length > 10, `main.ts imports only ${local.length} local modules?`);
  const names: string[] = [];
  for (const specifier of local) {
    const text = await Deno.readTextFile(new URL(specifier));
    assert.doesNotMatch(text, /Deno\.env\.toObject/, `${specifier} reads the whole environment`);
    const reads = /(?:Deno\.env\.get\(|\benv\(|\(\s*env,)\s*"([A-Za-z_][A-Za-z0-9_]*)"/g;
    for (const match of text.matchAll(reads)) names.push(match[1]);
  }
  return names;
}

Deno.test("the launcher's own flags are few and fixed: no file, no network", () => {
  assert.deepEqual([...LAUNCHER_FLAGS], ["--no-prompt", "--allow-env", "--allow-run"]);
});

Deno.test("deno task start, dev and compile run their scripts under exactly the launcher's flags", async () => {
  const tasks: Record<string, string> =
    JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
  const run = `deno run ${LAUNCHER_FLAGS.join(" ")}`;
  assert.equal(tasks.start, `${run} src/cli/start.ts`);
  assert.equal(tasks.dev, `${run} src/cli/start.ts --watch`);
  assert.equal(tasks.compile, `${run} src/cli/compile.ts`);
  for (const [name, command] of Object.entries(tasks)) {
    if (command.includes("src/main.ts")) assert.fail(`task ${name} runs src/main.ts directly`);
  }
});

Deno.test("the Dockerfile runs the launcher and the compile script under the same flags", async () => {
  const dockerfile = parseDockerfile(await Deno.readTextFile(new URL("Dockerfile", ROOT)));
  assert.deepEqual(execForm(only(dockerfile, "CMD", "app").args), [
    "deno",
    "run",
    "--cached-only",
    ...LAUNCHER_FLAGS,
    "src/cli/start.ts",
    "--cached-only",
  ]);
  const compiles = dockerfile.filter((i) => i.stage === "compile" && i.keyword === "RUN")
    .filter((i) => i.args.includes("compile"));
  assert.equal(compiles.length, 1);
  const words = compiles[0].args.split("&&")[0].trim().split(/\s+/);
  assert.deepEqual(words, [
    'DATA_DIR="${DATA_DIR}"',
    'JWKS_FILE="${JWKS_FILE}"',
    "deno",
    "run",
    ...LAUNCHER_FLAGS,
    "src/cli/compile.ts",
    "--frozen",
    "--output",
    "/out/customer-api",
  ]);
  const args = dockerfile.filter((i) => i.stage === "compile" && i.keyword === "ARG")
    .map((i) => i.args);
  assert.deepEqual(args.filter((arg) => arg !== "DENORT_BIN"), [
    "DATA_DIR=/data",
    "JWKS_FILE=/config/jwks.json",
  ]);
});

Deno.test("with DATABASE_URL the server reads and writes no file, unless the dev secret lives in DATA_DIR", () => {
  const url = "postgres://api@db:5432/customers";
  assert.deepEqual(serverPermissionFlags(configOf({ DATABASE_URL: url }), "/srv"), [
    "--no-prompt",
    "--allow-net",
    ENV_FLAG,
  ]);
  const jwks = configOf({ DATABASE_URL: url, JWT_SECRET: "", JWKS_FILE: "/etc/api/jwks.json" });
  assert.deepEqual(serverPermissionFlags(jwks, "/srv").slice(3), [
    "--allow-read=/etc/api/jwks.json",
  ]);
  const dev = loadConfig((name) => ({ DATABASE_URL: url, DATA_DIR: "/var/lib/api" })[name]);
  assert.deepEqual(serverPermissionFlags(dev, "/srv").slice(3), [
    "--allow-read=/var/lib/api",
    "--allow-write=/var/lib/api",
  ]);
});
