import assert from "node:assert/strict";
import { compileArgs, MAIN_MODULE, runArgs } from "../../src/cli/server_command.ts";
import { loadConfig } from "../../src/config.ts";
import { serverPermissionFlags } from "../../src/ops/permissions.ts";
import { REPO_ROOT } from "../support/deno_task.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const config = loadConfig((name) =>
  ({ JWT_SECRET: "", JWKS_FILE: "/etc/customer-api/jwks.json", DATA_DIR: "var" })[name]
);
const flags = serverPermissionFlags(config, "/srv");

Deno.test("the server module is named by its absolute path, so any working directory will do", () => {
  assert.equal(MAIN_MODULE, `${REPO_ROOT}src/main.ts`);
});

Deno.test("the launcher runs the server with the derived flags, and --watch/--cached-only before them", () => {
  assert.deepEqual(runArgs(config, "/srv"), ["run", ...flags, MAIN_MODULE]);
  assert.deepEqual(runArgs(config, "/srv", { watch: true, cachedOnly: true }), [
    "run",
    "--watch",
    "--cached-only",
    ...flags,
    MAIN_MODULE,
  ]);
  assert.ok(flags.includes("--allow-read=/srv/var,/etc/customer-api/jwks.json"), flags.join(" "));
});

Deno.test("deno task compile bakes the flags of the compile-time configuration into the binary", () => {
  assert.deepEqual(compileArgs(config, "/srv", { output: "dist/customer-api" }), [
    "compile",
    "--output",
    "dist/customer-api",
    ...flags,
    MAIN_MODULE,
  ]);
  const container = loadConfig((name) =>
    ({ JWT_SECRET: TEST_SECRET, DATA_DIR: "/data", SOCKET: "/run/api.sock" })[name]
  );
  assert.deepEqual(
    compileArgs(container, "/build", { output: "/out/customer-api", frozen: true }),
    [
      "compile",
      "--frozen",
      "--output",
      "/out/customer-api",
      "--no-prompt",
      "--allow-net",
      flags[2],
      "--allow-read=/data,/run/api.sock",
      "--allow-write=/data,/run/api.sock",
      MAIN_MODULE,
    ],
  );
});
