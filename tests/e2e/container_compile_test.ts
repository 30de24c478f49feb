/**
 * `--target binary` offline: the compile stage takes denort from the build context through the
 * DENORT_BIN build argument instead of downloading it. Runs when `podman` and a Deno base image are
 * on the machine (scripts/podman-base-standin.sh builds a stand-in); otherwise it is skipped.
 */
import assert from "node:assert/strict";
import { copyTree } from "../support/data_dir.ts";
import { checkoutId, findDenoBase, podman, podmanOk } from "../support/podman.ts";
import { skipIf } from "../support/skips.ts";

const ROOT = new URL("../../", import.meta.url);
const base = await findDenoBase();

Deno.test(skipIf(base.skip, {
  name: "--build-arg DENORT_BIN=dist/denort compiles with the context's denort, downloading none",
  fn: async () => {
    const context = await Deno.makeTempDir({ prefix: "customer-api-context-" });
    const tag = `localhost/customer-api-e2e-compile:${await checkoutId()}`;
    try {
      for (const file of ["Dockerfile", ".dockerignore", "deno.json", "deno.lock"]) {
        await Deno.copyFile(new URL(file, ROOT), `${context}/${file}`);
      }
      for (const dir of ["src", "docker"]) {
        await copyTree(new URL(dir, ROOT).pathname, `${context}/${dir}`);
      }
      // deno itself stands in for denort: `deno compile` only appends the program to it.
      await Deno.mkdir(`${context}/dist`);
      await Deno.copyFile(Deno.execPath(), `${context}/dist/denort`);
      const run = await podman([
        "build",
        "--format",
        "docker",
        "--target",
        "compile",
        "--build-arg",
        `DENO_IMAGE=${base.image}`,
        "--build-arg",
        "DENORT_BIN=dist/denort",
        "-t",
        tag,
        context,
      ], { seconds: 300 });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.doesNotMatch(run.stdout + run.stderr, /dl\.deno\.land|denort-[^ ]*\.zip/);
      const stat = ["run", "--rm", "--entrypoint", "stat", tag, "-c", "%s", "/out/customer-api"];
      const size = Number(await podmanOk(stat));
      const denort = (await Deno.stat(Deno.execPath())).size;
      assert.ok(size > denort, `the binary (${size} B) is not denort (${denort} B) plus the app`);
    } finally {
      await podman(["rmi", "-f", tag]);
      await Deno.remove(context, { recursive: true });
    }
  },
}));
