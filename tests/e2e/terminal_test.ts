/**
 * On a terminal the service speaks to people: lines to read and a short summary once ready (URL,
 * store, key source, warnings); JSON lines when LOG_FORMAT=json, as when its output is a pipe
 * (every other end-to-end test). The terminal is a pseudo-terminal from util-linux's `script`.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, userEnv } from "../support/deno_task.ts";
import { makeDataDir, removeDir } from "../support/server.ts";
import { skipIf } from "../support/skips.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const SCRIPT_MISSING = await new Deno.Command("script", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().then((out) => out.success, () => false)
  .then((has) => has ? undefined : "util-linux `script` is not installed: no pseudo-terminal");

/** Runs `deno task start` on a pseudo-terminal until `done` is printed; returns what it printed. */
async function onTerminal(env: Record<string, string>, done: RegExp): Promise<string> {
  const child = new Deno.Command("script", {
    args: ["-qfec", `"${Deno.execPath()}" task start`, "/dev/null"],
    cwd: REPO_ROOT,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => child.kill("SIGKILL"), 20_000);
  try {
    for await (const chunk of child.stdout) {
      text += decoder.decode(chunk, { stream: true });
      if (done.test(text)) break;
    }
  } finally {
    // Ctrl-C on the terminal, as a person stops it.
    await child.stdin.getWriter().write(new Uint8Array([3])).catch(() => {});
    const stopped = await Promise.race([
      child.status.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 10_000)),
    ]);
    if (!stopped) child.kill("SIGKILL");
    await child.status;
    clearTimeout(deadline);
  }
  return text.replace(/\r/g, "");
}

Deno.test(skipIf(SCRIPT_MISSING, {
  name:
    "on a terminal the service prints lines to read and a summary once ready; LOG_FORMAT=json keeps JSON lines",
  fn: async () => {
    const dataDir = await makeDataDir();
    try {
      const env = userEnv({ PORT: "0", DATA_DIR: dataDir, JWT_SECRET: TEST_SECRET });
      const text = await onTerminal(env, /warnings {2}.*\n/);
      assert.match(text, /customer-api ready at http:\/\/127\.0\.0\.1:\d+ \(0 customers/);
      assert.match(text, new RegExp(`store {5}JSONL log in ${dataDir}`));
      assert.match(text, /keys {6}JWT_SECRET \(HS256\)/);
      assert.match(text, /console {3}http:\/\/127\.0\.0\.1:\d+\/console/);
      assert.match(text, /warnings {2}none/);
      assert.match(text, /\d\d:\d\d:\d\d\.\d{3} INFO {2}listening url=http/);
      assert.doesNotMatch(text, /^\{"time"/m, "no JSON line on a terminal");

      const json = await onTerminal({ ...env, LOG_FORMAT: "json" }, /"msg":"ready".*\n/);
      assert.match(json, /^\{"time":"[^"]+","level":"info","msg":"listening"/m);
      assert.doesNotMatch(json, /customer-api ready at/);
    } finally {
      await removeDir(dataDir);
    }
  },
}));
