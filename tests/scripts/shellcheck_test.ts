/**
 * The shell scripts (scripts/*.sh, .ci/run) pass ShellCheck. CI installs it; elsewhere the test is
 * skipped without it.
 */
import assert from "node:assert/strict";
import { skipIf } from "../support/skips.ts";

const ROOT = new URL("../../", import.meta.url);

async function hasShellcheck(): Promise<boolean> {
  try {
    return (await new Deno.Command("shellcheck", { args: ["--version"] }).output()).success;
  } catch {
    return false;
  }
}

// In CI a missing ShellCheck is a failure, not a skip.
const skip = !(await hasShellcheck()) && Deno.env.get("CI") !== "true"
  ? "ShellCheck is not installed (Debian package `shellcheck`)"
  : undefined;

Deno.test(skipIf(skip, {
  name: "every script in scripts/ and .ci/run passes ShellCheck with no finding",
  fn: async () => {
    const scripts = [".ci/run"];
    for await (const entry of Deno.readDir(new URL("scripts/", ROOT))) {
      if (entry.isFile && entry.name.endsWith(".sh")) scripts.push(`scripts/${entry.name}`);
    }
    assert.ok(scripts.includes("scripts/podman-base-standin.sh"));
    const result = await new Deno.Command("shellcheck", { args: scripts, cwd: ROOT }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    assert.equal(result.code, 0, decode(result.stdout) + decode(result.stderr));
  },
}));
