/**
 * Lints the Dockerfile with `dockerlinter` (npm; hadolint's rules, and ShellCheck on RUN lines when
 * `shellcheck` is installed). CI installs both; elsewhere the tests are skipped without the linter.
 */
import assert from "node:assert/strict";
import { onPath } from "../support/on_path.ts";
import { skipIf } from "../support/skips.ts";

const ROOT = new URL("../../", import.meta.url);

const linter = await onPath("dockerlinter");
const shellcheck = await onPath("shellcheck");
// In CI a missing linter is a failure, not a skip.
const skip = linter === undefined && Deno.env.get("CI") !== "true"
  ? "dockerlinter is not installed (npm install -g --ignore-scripts dockerlinter@2.0.0)"
  : undefined;

async function lint(path: string): Promise<{ code: number; output: string }> {
  assert.ok(linter, "dockerlinter is not installed: npm install -g --ignore-scripts dockerlinter");
  const args = ["-f", path, "-e", "info", ...(shellcheck ? [] : ["-s", "none"])];
  const result = await new Deno.Command(linter, { args, cwd: ROOT, stdin: "null" }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: result.code, output: decode(result.stdout) + decode(result.stderr) };
}

Deno.test(skipIf(skip, {
  name: "the Dockerfile passes dockerlinter with no finding at any level",
  fn: async () => {
    const { code, output } = await lint("Dockerfile");
    assert.equal(code, 0, output);
  },
}));

Deno.test(skipIf(skip, {
  name: "dockerlinter refuses a Dockerfile that runs as root from an unpinned image",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "customer-api-lint-" });
    try {
      await Deno.writeTextFile(`${dir}/Dockerfile`, "FROM denoland/deno:latest\nUSER root\n");
      const { code, output } = await lint(`${dir}/Dockerfile`);
      assert.equal(code, 1, output);
      assert.match(output, /latest/);
      assert.match(output, /root/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
}));
