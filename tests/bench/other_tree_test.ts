import assert from "node:assert/strict";
import { exportTree } from "../../bench/support/other_tree.ts";
import { REPO_ROOT } from "../support/deno_task.ts";

Deno.test("--check --against=REF exports that commit's tree, which holds its own server, and removes it after", async () => {
  const tree = await exportTree("HEAD");
  assert.ok(tree, "HEAD is a commit");
  try {
    assert.match(tree.label, /^commit [0-9a-f]{7,}$/);
    assert.ok(tree.root.endsWith("/"));
    assert.ok(Deno.statSync(`${tree.root}src/main.ts`).isFile);
    assert.ok(Deno.statSync(`${tree.root}deno.lock`).isFile);
  } finally {
    await tree.remove();
  }
  assert.throws(() => Deno.statSync(tree.root), Deno.errors.NotFound);
});

Deno.test("--against a directory uses that checkout as it is, and a name that is neither answers undefined", async () => {
  const here = await exportTree(REPO_ROOT);
  assert.equal(here?.root, await Deno.realPath(REPO_ROOT) + "/");
  await here?.remove();
  assert.ok(Deno.statSync(`${REPO_ROOT}src/main.ts`).isFile, "a directory is never removed");
  assert.equal(await exportTree("no-such-branch-or-commit"), undefined);
});
