/** Reading deno.json import maps and deno.lock files, for the tests of what the image installs. */

/** The parts of a deno.json these tests read. */
export interface DenoConfig {
  imports: Record<string, string>;
  lock?: string;
  fmt?: Record<string, unknown>;
  lint?: Record<string, unknown>;
}

/** The parts of a deno.lock (version 5) these tests read. */
export interface Lock {
  specifiers: Record<string, string>;
  npm: Record<
    string,
    { integrity: string; dependencies?: string[]; optionalDependencies?: string[] }
  >;
  workspace: { dependencies: string[] };
}

/** The package a bare specifier, `npm:` specifier or lock key names: `ajv/dist/x.js` → `ajv`. */
export function packageName(specifier: string): string {
  const bare = specifier.replace(/^npm:\/?/, "");
  const [first, second] = bare.split("/");
  const name = first.startsWith("@") ? `${first}/${second}` : first;
  // A lock key or versioned specifier ends in @version (after the scope's leading @).
  const at = name.indexOf("@", 1);
  return at > 0 ? name.slice(0, at) : name;
}

/** The packages the TypeScript files under `dir` import by a bare or `npm:` specifier. */
export async function importedPackages(dir: URL): Promise<Set<string>> {
  const found = new Set<string>();
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) {
      for (const name of await importedPackages(url)) found.add(name);
      continue;
    }
    if (!entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(url);
    for (const match of source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)"([^"]+)"/g)) {
      const specifier = match[1];
      if (/^(\.|\/|node:|file:|data:|https?:)/.test(specifier)) continue;
      found.add(packageName(specifier));
    }
  }
  return found;
}

/** The package names a lock installs: its workspace dependencies and all they (optionally) depend on. */
export function lockedPackages(lock: Lock): Set<string> {
  const keys = Object.keys(lock.npm);
  const pending = lock.workspace.dependencies
    .map((specifier) => `${packageName(specifier)}@${lock.specifiers[specifier]}`);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    // A dependency is listed by name when one version is locked, else as name@version.
    const resolves = (dependency: string, k: string) =>
      k === dependency || k.startsWith(`${dependency}_`) || packageName(k) === dependency;
    const entry = lock.npm[key];
    for (const dependency of [...entry?.dependencies ?? [], ...entry?.optionalDependencies ?? []]) {
      pending.push(...keys.filter((k) => resolves(dependency, k)));
    }
  }
  return new Set([...seen].map(packageName));
}
