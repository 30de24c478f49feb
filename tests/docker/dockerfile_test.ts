import assert from "node:assert/strict";
import { execForm, type Instruction, only, parseDockerfile } from "../support/dockerfile.ts";

const ROOT = new URL("../../", import.meta.url);
const text = await Deno.readTextFile(new URL("Dockerfile", ROOT));
const dockerfile = parseDockerfile(text);
/** Where docs/operations.md puts a local denort for `--build-arg DENORT_BIN=dist/denort`; may be absent. */
const DENORT_PATH = "dist/denort";
const app = dockerfile.filter((i) => i.stage === "app");

function args(keyword: string, stage: Instruction[] = app): string[] {
  return stage.filter((i) => i.keyword === keyword).map((i) => i.args);
}

Deno.test("the base image is the official Deno image at the version CI installs", async () => {
  const ci = await Deno.readTextFile(new URL(".ci/run", ROOT));
  const version = /^DENO_VERSION=(\S+)$/m.exec(ci)?.[1];
  assert.ok(version, ".ci/run sets no DENO_VERSION");
  assert.ok(
    args("ARG", dockerfile).includes(`DENO_IMAGE=denoland/deno:debian-${version}`),
    `no ARG DENO_IMAGE=denoland/deno:debian-${version}`,
  );
  const bases = dockerfile.filter((i) => i.keyword === "FROM" && i.stage !== "binary");
  assert.deepEqual(bases.map((i) => i.args.split(/\s+/)[0]), ["${DENO_IMAGE}", "${DENO_IMAGE}"]);
  assert.equal(dockerfile.at(-1)?.stage, "app", "a plain `docker build` must build the app stage");
});

Deno.test("the Dockerfile has no parser directive, so no builder fetches a frontend image", () => {
  // Directives (`# syntax=…`) count only on the first line; a `syntax` one makes BuildKit fetch it.
  assert.doesNotMatch(text.split("\n")[0], /^#\s*[a-z]+\s*=/i);
  assert.doesNotMatch(text, /^#\s*syntax\s*=/im);
});

Deno.test("DENORT_BIN is a build argument without default, copied to its own path in /build", () => {
  const compile = dockerfile.filter((i) => i.stage === "compile");
  // Without a default an unset DENORT_BIN stays out of RUN's environment and deno downloads denort.
  assert.ok(args("ARG", compile).includes("DENORT_BIN"), "no DENORT_BIN build argument");
  assert.deepEqual(args("WORKDIR", compile), ["/build"]);
  // Relative to /build, the build argument in RUN's environment names the copied file.
  assert.ok(
    args("COPY", compile).includes("${DENORT_BIN:-deno.lock} ./${DENORT_BIN:-deno.lock}"),
    "no COPY of DENORT_BIN to the same path under /build",
  );
  assert.ok(text.includes(`--build-arg DENORT_BIN=${DENORT_PATH}`), "the header shows no example");
});

Deno.test("the app stage runs as deno with HOST=0.0.0.0, PORT=8000 and DATA_DIR=/data", () => {
  assert.deepEqual(args("USER"), ["deno"]);
  const env = args("ENV").join(" ");
  for (const setting of ["HOST=0.0.0.0", "PORT=8000", "DATA_DIR=/data"]) {
    assert.ok(env.split(/\s+/).includes(setting), `ENV lacks ${setting}`);
  }
  assert.deepEqual(args("VOLUME"), ['["/data"]']);
  assert.deepEqual(args("EXPOSE"), ["8000"]);
  const prepare = args("RUN").find((run) => run.includes("/data"));
  assert.match(prepare ?? "", /chown deno:deno \/data/, "/data is not owned by deno");
});

Deno.test("the binary stage runs the compiled server as a non-root user on a /data volume", () => {
  const binary = dockerfile.filter((i) => i.stage === "binary");
  assert.deepEqual(args("USER", binary), ["65532:65532"]);
  assert.deepEqual(args("VOLUME", binary), ['["/data"]']);
  assert.deepEqual(execForm(only(dockerfile, "ENTRYPOINT", "binary").args), [
    "/usr/local/bin/customer-api",
  ]);
});

Deno.test("dependencies are cached at build time from deno.lock, frozen", () => {
  const installs = args("RUN").filter((run) => run.startsWith("deno install"));
  assert.ok(installs.length > 0);
  for (const run of installs) assert.match(run, /--frozen/);
  assert.ok(installs.some((run) => run.includes("--entrypoint src/main.ts")));
  assert.ok(args("COPY").includes("deno.json deno.lock ./"));
});

Deno.test(".dockerignore keeps out everything but what the Dockerfile copies", async () => {
  const lines = (await Deno.readTextFile(new URL(".dockerignore", ROOT))).split("\n")
    .map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
  assert.equal(lines[0], "*", "the first pattern must exclude everything");
  const included = lines.slice(1).map((line) => {
    assert.ok(line.startsWith("!"), `"${line}" is not a re-inclusion`);
    return line.slice(1).replace(/\/$/, "");
  });
  const sources = dockerfile.filter((i) => i.keyword === "COPY" && !i.args.startsWith("--from"))
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1).map((path) => path.replace(/\/$/, "")))
    // `${DENORT_BIN:-deno.lock}` copies DENORT_BIN when it is set, else its default.
    .flatMap((path) => path === "${DENORT_BIN:-deno.lock}" ? [DENORT_PATH, "deno.lock"] : [path]);
  assert.deepEqual([...new Set(sources)].sort(), [...included].sort());
  for (const path of included.filter((path) => path !== DENORT_PATH)) {
    await Deno.stat(new URL(path, ROOT));
  }
});
