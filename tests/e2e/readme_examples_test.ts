/**
 * The README's API example, run as a user pastes it: the same shell lines, with only the Deno
 * command and the server's address put in (the test server listens on a free port).
 */
import assert from "node:assert/strict";
import { REPO_ROOT, userEnv } from "../support/deno_task.ts";
import { startServer } from "../support/server.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const readme = await Deno.readTextFile(`${REPO_ROOT}README.md`);

/** The fenced `sh` block that starts with `first`. */
function shellBlock(first: string): string {
  const start = readme.indexOf("```sh\n" + first);
  assert.ok(start >= 0, `no sh block starting with ${first}`);
  const body = readme.slice(start + "```sh\n".length);
  return body.slice(0, body.indexOf("```\n"));
}

Deno.test("the README's endpoint example runs as printed: create, list, patch and delete", async () => {
  await using server = await startServer();
  const script = shellBlock("TOKEN=$(npx -y deno@2.9.6 task token)")
    .replaceAll("npx -y deno@2.9.6", `'${Deno.execPath()}'`)
    .replaceAll("http://127.0.0.1:8000", server.url);
  const run = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd: REPO_ROOT,
    env: userEnv({ JWT_SECRET: TEST_SECRET }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(run.stdout);
  const stderr = new TextDecoder().decode(run.stderr);
  assert.equal(run.code, 0, `${stdout}\n${stderr}`);
  const id = /^created ([0-9A-Z]{26})$/m.exec(stdout)?.[1];
  assert.ok(id, `no id captured:\n${stdout}`);
  assert.match(stdout, new RegExp(`"data":\\[\\{"id":"${id}"`), "the list shows the customer");
  assert.match(stdout, /"phone":"\+442079460958"/, "the patch answered the changed customer");
  assert.match(stdout, /"line1":"12 St James's Square"/);
  assert.match(stdout, /^deleted: 204$/m);
});

Deno.test("no README code block holds a placeholder: no … and no <name> to fill in", () => {
  const blocks = [...readme.matchAll(/```(?:sh|bash|json)\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 10, `found only ${blocks.length} code blocks`);
  for (const block of blocks) {
    for (const line of block.split("\n")) {
      assert.ok(!line.includes("…"), `an ellipsis in: ${line}`);
      assert.doesNotMatch(line, /<[a-z][a-z0-9 _-]*>/, `a placeholder in: ${line}`);
    }
  }
});

Deno.test("the README points at nothing outside the repository", () => {
  assert.doesNotMatch(readme, /\.\.\/shared|shared\/api-contract/);
  for (const [, target] of readme.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)) {
    assert.ok(
      Deno.statSync(`${REPO_ROOT}${target.split("#")[0]}`).isFile,
      `a link to ${target}, which is not a file of the repository`,
    );
  }
});
