/**
 * Builds the image with Podman as docs/operations.md says and runs it: health check, a write and a read
 * with a token, `podman stop`, the data on the volume read back by a new container, and a module
 * cache with only the server's packages. Runs when `podman` and a Deno base image are on the
 * machine (scripts/podman-base-standin.sh builds a stand-in); otherwise it is skipped, saying why.
 */
import assert from "node:assert/strict";
import { ApiClient, type Customer, newCustomer } from "../support/api.ts";
import { execForm, only, parseDockerfile } from "../support/dockerfile.ts";
import { lockedPackages } from "../support/import_maps.ts";
import { checkoutId, findDenoBase, podman, podmanOk } from "../support/podman.ts";
import { skipIf } from "../support/skips.ts";
import { makeToken, TEST_SECRET } from "../support/tokens.ts";

const ROOT = new URL("../../", import.meta.url);
/** One tag per checkout, so that two checkouts never run each other's image; kept as a cache. */
const TAG = `localhost/customer-api-e2e:${await checkoutId()}`;
/** JWT_SECRET reaches `podman run -e JWT_SECRET` through the environment, never the command line. */
const WITH_SECRET = { env: { JWT_SECRET: TEST_SECRET } };

const base = await findDenoBase();

/**
 * Waits until GET /readyz answers 200 from the container's published port: the log is replayed
 * (/healthz answers 200 as soon as the listener opens, before the replay).
 */
async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (true) {
    try {
      const res = await fetch(new URL("/readyz", url));
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    assert.ok(Date.now() < deadline, `${url}/readyz did not answer 200 within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `podman run -d` as docs/operations.md shows it; answers the container's URL on loopback. */
async function runContainer(name: string, volume: string): Promise<string> {
  await podmanOk([
    "run",
    "-d",
    "--name",
    name,
    "-p",
    "127.0.0.1::8000",
    "-v",
    `${volume}:/data`,
    "-e",
    "JWT_SECRET",
    TAG,
  ], WITH_SECRET);
  const url = `http://${await podmanOk(["port", name, "8000/tcp"])}`;
  await ready(url);
  return url;
}

Deno.test(skipIf(base.skip, {
  name: "the podman-built image serves, reports healthy, stops cleanly and keeps its data",
  fn: async (t) => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const [first, second, volume] = ["a", "b", "data"].map((n) =>
      `customer-api-e2e-${n}-${suffix}`
    );
    try {
      await t.step(
        "podman build --format docker builds the Dockerfile on the base image",
        async () => {
          const args = ["build", "--format", "docker", "--build-arg", `DENO_IMAGE=${base.image}`];
          await podmanOk([...args, "-t", TAG, "."], { seconds: 300 });
        },
      );

      await t.step("the image keeps the Dockerfile's HEALTHCHECK", async () => {
        const text = await Deno.readTextFile(new URL("Dockerfile", ROOT));
        const command = execForm(only(parseDockerfile(text), "HEALTHCHECK", "app").args);
        const check = JSON.parse(
          await podmanOk(["image", "inspect", "-f", "{{json .HealthCheck}}", TAG]),
        );
        assert.deepEqual(check?.Test, ["CMD", ...command]);
      });

      await t.step("the image's module cache holds only the server's packages", async () => {
        // The root import map's packages and what they depend on (pg has a few): the root lock.
        const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", ROOT)));
        const packages = [...lockedPackages(lock)];
        const script = 'ls "$DENO_DIR/npm/registry.npmjs.org"; du -sk "$DENO_DIR/npm"';
        const out = await podmanOk(["run", "--rm", "--entrypoint", "sh", TAG, "-c", script]);
        const lines = out.split("\n");
        const kib = Number(lines.pop()!.split(/\s+/)[0]);
        assert.deepEqual(lines.sort(), packages.sort());
        assert.ok(kib < 2048, `the npm cache is ${kib} KiB`);
      });

      let created: Customer | undefined;
      await t.step("a token signed with JWT_SECRET creates and reads a customer", async () => {
        const api = new ApiClient(await runContainer(first, volume), await makeToken());
        created = await api.create(newCustomer());
        const read = await api.get(`/api/customers/${created.id}`);
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body, created);
      });

      await t.step("podman healthcheck run reports the running container healthy", async () => {
        const run = await podman(["healthcheck", "run", first]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
      });

      await t.step(
        "podman stop ends the server with exit code 0 after it says stopped",
        async () => {
          await podmanOk(["stop", "-t", "30", first]);
          assert.equal(await podmanOk(["inspect", "-f", "{{.State.ExitCode}}", first]), "0");
          const logs = await podman(["logs", first]);
          const messages = logs.stdout.split("\n").filter((line) => line.startsWith("{"))
            .map((line) => JSON.parse(line).msg);
          assert.equal(messages.at(-1), "stopped", logs.stdout + logs.stderr);
        },
      );

      await t.step("a new container on the same volume reads the customer back", async () => {
        const api = new ApiClient(await runContainer(second, volume), await makeToken());
        const read = await api.get(`/api/customers/${created!.id}`);
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body, created);
      });
    } finally {
      await podman(["rm", "-f", "-t", "0", first, second]);
      await podman(["volume", "rm", "-f", volume]);
    }
  },
}));
