/**
 * The README's API example, run as a user pastes it: the same shell lines, with only the Deno
 * command and the server's address put in (the test server listens on a free port); and the
 * README and the topic pages under docs/ hold no placeholder and link only inside the repository.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, userEnv } from "../support/deno_task.ts";
import { startServer } from "../support/server.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const readme = await Deno.readTextFile(`${REPO_ROOT}README.md`);
/** The README and every page under docs/, by their path in the repository. */
const pages = new Map<string, string>([["README.md", readme]]);
for (const entry of Deno.readDirSync(`${REPO_ROOT}docs`)) {
  if (entry.isFile && entry.name.endsWith(".md")) {
    pages.set(`docs/${entry.name}`, await Deno.readTextFile(`${REPO_ROOT}docs/${entry.name}`));
  }
}

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

Deno.test("no code block of the README or docs/ holds a placeholder: no … and no <name> to fill in", () => {
  const blocks = [...pages].flatMap(([path, text]) =>
    [...text.matchAll(/```(?:sh|bash|json)\n([\s\S]*?)```/g)].map((m) => ({ path, block: m[1] }))
  );
  assert.ok(blocks.length >= 10, `found only ${blocks.length} code blocks`);
  for (const { path, block } of blocks) {
    for (const line of block.split("\n")) {
      assert.ok(!line.includes("…"), `an ellipsis in ${path}: ${line}`);
      assert.doesNotMatch(line, /<[a-z][a-z0-9 _-]*>/, `a placeholder in ${path}: ${line}`);
    }
  }
});

Deno.test("the README and docs/ point at nothing outside the repository", () => {
  assert.ok(pages.size >= 5, `found only ${pages.size - 1} pages under docs/`);
  for (const [path, text] of pages) {
    assert.doesNotMatch(text, /\.\.\/shared|shared\/api-contract/, path);
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
    for (const [, target] of text.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)) {
      const file = decodeURIComponent(
        new URL(target.split("#")[0], `file://${REPO_ROOT}${dir}`).pathname,
      );
      const where = `${path} links to ${target}`;
      assert.ok(file.startsWith(REPO_ROOT), `${where}, outside the repository`);
      assert.ok(Deno.statSync(file).isFile || Deno.statSync(file).isDirectory, where);
    }
  }
});

Deno.test("every page under docs/ is linked from the README", () => {
  for (const path of pages.keys()) {
    if (path === "README.md") continue;
    assert.ok(readme.includes(`](${path})`), `the README does not link to ${path}`);
  }
});
