/** The open-file limit: the launcher raises the soft limit to the hard one; low limits warn. */
import assert from "node:assert/strict";
import { startServer } from "../support/server.ts";

/** The server process's soft and hard open-file limits, from /proc (read with `cat`). */
async function openFileLimits(pid: number): Promise<{ soft: number; hard: number }> {
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/limits`] }).output();
  const text = new TextDecoder().decode(output.stdout);
  const [, soft, hard] = /^Max open files\s+(\d+)\s+(\d+)/m.exec(text)!;
  return { soft: Number(soft), hard: Number(hard) };
}

function logLines(stdout: string): Record<string, unknown>[] {
  return stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
}

Deno.test("the launcher raises the soft open-file limit to the hard one and warns below 8192", async () => {
  const server = await startServer({ openFileLimit: { soft: 256, hard: 4096 } });
  const limits = await openFileLimits(server.pid);
  const { stdout } = await server.stop();
  await server.dispose();
  assert.deepEqual(limits, { soft: 4096, hard: 4096 });
  const warning = logLines(stdout).find((line) =>
    line.msg?.toString().startsWith("Open-file limit")
  );
  assert.deepEqual(warning?.level, "warn");
  assert.deepEqual(warning?.limit, "4096");
});

Deno.test("an open-file limit of 8192 or more is raised and logged without a warning", async () => {
  const server = await startServer({ openFileLimit: { soft: 512, hard: 10000 } });
  const limits = await openFileLimits(server.pid);
  const { stdout } = await server.stop();
  await server.dispose();
  assert.deepEqual(limits, { soft: 10000, hard: 10000 });
  const lines = logLines(stdout);
  assert(!lines.some((line) => line.level === "warn"), stdout);
  assert.deepEqual(lines.find((line) => line.msg === "open-file limit")?.limit, "10000");
});

Deno.test("without sh on PATH the launcher starts the server directly, which logs no limit", async () => {
  // A PATH holding only deno: no shell to raise the limit with.
  const bin = await Deno.makeTempDir({ prefix: "customer-api-no-sh-" });
  await Deno.symlink(Deno.execPath(), `${bin}/deno`);
  try {
    const server = await startServer({ env: { PATH: bin } });
    const { stdout } = await server.stop();
    await server.dispose();
    const lines = logLines(stdout);
    assert.ok(lines.some((line) => line.msg === "ready"), stdout);
    assert.ok(!lines.some((line) => String(line.msg).toLowerCase().includes("open-file")), stdout);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});
