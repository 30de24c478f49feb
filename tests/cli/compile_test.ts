/**
 * `deno task compile` end to end. `deno compile` downloads the `denort` runtime unless DENORT_BIN
 * names a local copy, so without DENORT_BIN (as on a machine with no internet) this is skipped.
 */
import assert from "node:assert/strict";
import { logLines } from "../support/data_dir.ts";
import { runDenoTask, userEnv } from "../support/deno_task.ts";
import { removeDir } from "../support/server.ts";
import { skipIf } from "../support/skips.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const DENORT_BIN = Deno.env.get("DENORT_BIN");
const DENORT_MISSING = DENORT_BIN
  ? undefined
  : "no denort: DENORT_BIN is unset (deno compile would download it)";

Deno.test(skipIf(DENORT_MISSING, {
  name: "deno task compile bakes DATA_DIR into a binary that serves from it and stops on SIGTERM",
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "customer-api compile " });
    try {
      const dataDir = `${root}/var data`;
      const binary = `${root}/customer-api`;
      const compiled = await runDenoTask("compile", ["--output", binary], {
        DATA_DIR: dataDir,
        DENORT_BIN: DENORT_BIN!,
      });
      assert.equal(compiled.code, 0, compiled.stderr);
      const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, JWT_SECRET: TEST_SECRET };
      const child = new Deno.Command(binary, {
        env: userEnv(env),
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let stdout = "";
      while (logLines(stdout, "listening").length === 0) {
        const { value, done } = await lines.read();
        if (done) break;
        stdout += value;
      }
      assert.equal(logLines(stdout, "listening").length, 1, `${stdout}${await stderr}`);
      assert.ok((await Deno.stat(`${dataDir}/log`)).isDirectory, "nothing written to DATA_DIR");
      child.kill("SIGTERM");
      for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) {
        stdout += chunk.value;
      }
      assert.equal((await child.status).code, 0, await stderr);
      assert.equal(logLines(stdout, "stopped").length, 1, stdout);
    } finally {
      await removeDir(root);
    }
  },
}));
