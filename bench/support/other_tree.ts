/**
 * Another tree of this repository to measure beside the working one: a checkout's directory as it
 * is, or a git commit, branch or tag exported with `git archive` into a temporary directory.
 */

const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/** A tree whose server the benchmarks can start; `remove` deletes what was exported. */
export interface Tree {
  /** Its root directory, ending in "/". */
  root: string;
  /** How to name it in output, e.g. `commit 4a058c7`. */
  label: string;
  remove: () => Promise<void>;
}

/** The tree `where` names, or undefined when it is neither a directory nor a known commit. */
export async function exportTree(where: string): Promise<Tree | undefined> {
  const stat = await Deno.stat(where).catch(() => undefined);
  if (stat?.isDirectory) {
    const root = (await Deno.realPath(where)).replace(/\/?$/, "/");
    return { root, label: `the tree in "${root}"`, remove: () => Promise.resolve() };
  }
  const commit = await git(["rev-parse", "--verify", "--quiet", "--short", `${where}^{commit}`]);
  if (commit === undefined) return undefined;
  const root = await Deno.makeTempDir({ prefix: "customer-api-bench-tree-" });
  const remove = () => Deno.remove(root, { recursive: true });
  try {
    const archive = new Deno.Command("git", {
      args: ["archive", "--format=tar", commit],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const tar = new Deno.Command("tar", { args: ["-x", "-C", root], stdin: "piped" }).spawn();
    await archive.stdout.pipeTo(tar.stdin);
    const [archived, extracted] = await Promise.all([archive.status, tar.status]);
    if (!archived.success || !extracted.success) throw new Error(`git archive ${commit} failed`);
  } catch (error) {
    await remove();
    throw error;
  }
  return { root: `${root}/`, label: `commit ${commit}`, remove };
}

async function git(args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("git", {
      args,
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    return out.success && text !== "" ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This checkout's server (src/, deno.json, deno.lock) copied into a temporary directory, to run
 * beside an exported tree from the same kind of place: GET one ran 9 % faster from the checkout
 * than the same code from a copy, which would count as the difference between two trees.
 */
export async function copyOfThisTree(): Promise<Tree> {
  const root = await Deno.makeTempDir({ prefix: "customer-api-bench-tree-" });
  const remove = () => Deno.remove(root, { recursive: true });
  const copied = await new Deno.Command("cp", {
    args: ["-r", "src", "deno.json", "deno.lock", root],
    cwd: REPO_ROOT,
    stderr: "piped",
  }).output();
  if (!copied.success) {
    await remove();
    throw new Error(`Copying this tree failed: ${new TextDecoder().decode(copied.stderr)}`);
  }
  return { root: `${root}/`, label: "this tree (copied)", remove };
}
