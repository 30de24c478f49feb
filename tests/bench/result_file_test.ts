import assert from "node:assert/strict";
import { renderResult } from "../../bench/support/result_file.ts";

const result = {
  name: "http",
  title: "HTTP: the service against the contract floor",
  command: "deno task bench --quick",
  output: ["", "GET one customer", "service    15,277 req/s   0.82×", ""],
  ratios: [
    { name: "http.get.service/floor", value: 0.8231, better: "higher" as const },
    {
      name: "memory.rss-bytes-per-customer-after-compaction",
      value: 884.4,
      better: "lower" as const,
    },
  ],
};

Deno.test("a result file names the machine, the versions and the command, then its ratios and figures", async () => {
  const text = await renderResult(result);
  assert.match(text, /^# HTTP: the service against the contract floor\n/);
  assert.match(text, /Written by `deno task bench --quick` at commit `[^`]+`\./);
  assert.match(
    text,
    new RegExp(`\\| [^|]+, ${navigator.hardwareConcurrency} cores, [^|]+ memory +\\|`),
  );
  assert.ok(text.includes(`Deno ${Deno.version.deno}, V8 ${Deno.version.v8}`));
  assert.match(text, /\| `http\.get\.service\/floor` +\| +0\.823 \| higher \|/);
  assert.match(
    text,
    /\| `memory\.rss-bytes-per-customer-after-compaction` \| 884\.400 \| lower +\|/,
  );
  assert.ok(text.endsWith("```text\nGET one customer\nservice    15,277 req/s   0.82×\n```\n"));
});

Deno.test("a result file is as deno fmt would write it, so the results never fail the format check", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/http.md`, await renderResult(result));
    const fmt = await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--check", `${dir}/http.md`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(fmt.code, 0, new TextDecoder().decode(fmt.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
