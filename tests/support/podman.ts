/** Podman for the container tests: running it, and finding a Deno base image to build on. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** What one podman command did. */
export interface PodmanRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman args…` in the checkout to its end, within `seconds`; `env` adds variables. */
export async function podman(
  args: string[],
  options: { seconds?: number; env?: Record<string, string> } = {},
): Promise<PodmanRun> {
  const output = await new Deno.Command("podman", {
    args,
    cwd: ROOT,
    env: options.env,
    stdin: "null",
    signal: AbortSignal.timeout((options.seconds ?? 60) * 1000),
  }).output();
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Like `podman`, but insists on exit code 0 and answers the trimmed stdout. */
export async function podmanOk(
  args: string[],
  options?: { seconds?: number; env?: Record<string, string> },
): Promise<string> {
  const run = await podman(args, options);
  assert.equal(run.code, 0, `podman ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
}

/** A short, stable name for this checkout (its path's SHA-256), for per-checkout image tags. */
export async function checkoutId(): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(ROOT.pathname));
  return [...new Uint8Array(digest).slice(0, 6)]
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The Deno base image to build on, or why container tests cannot run on this machine. */
export async function findDenoBase(): Promise<{ image?: string; skip?: string }> {
  const ci = await Deno.readTextFile(new URL(".ci/run", ROOT));
  const version = /^DENO_VERSION=(\S+)$/m.exec(ci)?.[1];
  const candidates = [
    Deno.env.get("CONTAINER_TEST_DENO_IMAGE"),
    `localhost/deno-standin:${version}`,
    `docker.io/denoland/deno:debian-${version}`,
  ].filter((image): image is string => image !== undefined && image !== "");
  try {
    for (const image of candidates) {
      if ((await podman(["image", "exists", image], { seconds: 20 })).code === 0) return { image };
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { skip: "podman is not on PATH" };
    throw error;
  }
  return { skip: `none of ${candidates.join(", ")} is present (scripts/podman-base-standin.sh)` };
}
