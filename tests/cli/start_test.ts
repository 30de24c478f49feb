/** The launcher behind `deno task start` and `deno task dev`: refusals, signals and its death. */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { logLines } from "../support/data_dir.ts";
import { denoTask, runDenoTask, userEnv } from "../support/deno_task.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken, TEST_SECRET } from "../support/tokens.ts";

const EXIT_CONFIG = 78;
const TIMEOUT_MS = 20_000;

/** The fields of /proc/<pid>/stat after the command name, or undefined if there is no such process. */
async function procStat(pid: number): Promise<string[] | undefined> {
  // Read by `cat`: Deno grants /proc only with --allow-all.
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stderr: "null" })
    .output();
  if (!output.success) return undefined;
  // The command name in parentheses may hold spaces; the fields after its ")" do not.
  const stat = new TextDecoder().decode(output.stdout);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The parent PID of `pid`. */
async function parentOf(pid: number): Promise<number> {
  const fields = await procStat(pid);
  assert.ok(fields, `no process ${pid}`);
  return Number(fields[1]);
}

/** Whether `pid` is still running: an orphan that has exited may stay a zombie a while. */
async function running(pid: number): Promise<boolean> {
  const fields = await procStat(pid);
  return fields !== undefined && fields[0] !== "Z";
}

Deno.test("a configuration error stops the launcher with one line naming the variable, exit 78", async () => {
  const result = await runDenoTask("start", [], { PORT: "80a", DATA_DIR: "/nonexistent" });
  assert.equal(result.code, EXIT_CONFIG, result.stderr);
  assert.equal(
    result.stderr.trim(),
    'customer-api cannot start: PORT "80a" must be an integer from 0 to 65535',
  );
  assert.equal(result.stdout, "");
});

Deno.test("a DATA_DIR with a comma is refused before the server runs, naming DATA_DIR, exit 78", async () => {
  const parent = await makeDataDir();
  const dataDir = `${parent}/a,b`;
  try {
    const result = await runDenoTask("start", [], { DATA_DIR: dataDir, JWT_SECRET: TEST_SECRET });
    assert.equal(result.code, EXIT_CONFIG, result.stderr);
    assert.ok(
      result.stderr.startsWith(`customer-api cannot start: DATA_DIR "${dataDir}" contains a comma`),
      result.stderr,
    );
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    await assert.rejects(Deno.stat(dataDir), Deno.errors.NotFound);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("deno task start --help prints the usage and starts nothing; an unknown option exits 2", async () => {
  const help = await runDenoTask("start", ["--help"], {});
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: deno task start/);
  assert.match(help.stdout, /DATA_DIR/);
  const unknown = await runDenoTask("start", ["--port=1"], {});
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--port/);
  assert.match(unknown.stderr, /Usage: deno task start/);
});

Deno.test("when the launcher is killed with SIGKILL the server stops gracefully and frees DATA_DIR", async () => {
  const dataDir = await makeDataDir();
  try {
    const server = await startServer({ dataDir });
    const customer = await new ApiClient(server.url, await makeToken()).create(newCustomer());
    const launcher = await parentOf(server.pid);
    assert.notEqual(launcher, server.pid);
    Deno.kill(launcher, "SIGKILL");
    const deadline = performance.now() + TIMEOUT_MS;
    while (await running(server.pid) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (await running(server.pid)) {
      Deno.kill(server.pid, "SIGKILL");
      assert.fail(`the server ${server.pid} outlived its launcher by ${TIMEOUT_MS / 1000} s`);
    }
    // stop() signals a `deno task` that has ended with its launcher and collects the output.
    const stopped = await server.stop();
    const shutdown = logLines(stopped.stdout, "shutting down");
    assert.deepEqual(shutdown.map((line) => line.signal), ["launcher gone"], stopped.stdout);
    assert.equal(logLines(stopped.stdout, "stopped").length, 1, stopped.stdout);

    await using restarted = await startServer({ dataDir });
    const got = await new ApiClient(restarted.url, await makeToken())
      .get(`/api/customers/${customer.id}`);
    assert.equal(got.status, 200, got.text);
  } finally {
    await removeDir(dataDir);
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`deno task dev (the file watcher) stops on ${signal}, and the server with it`, async () => {
    const dataDir = await makeDataDir();
    const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, JWT_SECRET: TEST_SECRET };
    const child = denoTask("dev", [], userEnv(env)).spawn();
    const stderr = new Response(child.stderr).text();
    let stdout = "";
    try {
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let pid: number | undefined;
      const deadline = performance.now() + TIMEOUT_MS;
      while (pid === undefined && performance.now() < deadline) {
        const { value, done } = await lines.read();
        if (done) break;
        stdout += value;
        pid = logLines(stdout, "listening")[0]?.pid;
      }
      assert.ok(pid !== undefined, `no "listening" line: ${stdout}`);
      child.kill(signal);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<"hung">((resolve) =>
        timer = setTimeout(resolve, TIMEOUT_MS, "hung")
      );
      const ended = await Promise.race([child.status, hung]);
      clearTimeout(timer);
      if (ended === "hung") {
        Deno.kill(pid, "SIGKILL");
        child.kill("SIGKILL");
        assert.fail(`deno task dev still ran ${TIMEOUT_MS / 1000} s after ${signal}`);
      }
      for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) {
        stdout += chunk.value;
      }
      assert.equal(ended.code, 0, await stderr);
      assert.ok(!await running(pid), `the server ${pid} outlived deno task dev`);
      assert.equal(logLines(stdout, "stopped").length, 1, stdout);
    } finally {
      await child.status;
      await stderr;
      await removeDir(dataDir);
    }
  });
}
