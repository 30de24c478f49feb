/** The import graph of src/, read from the source text: what the architecture test checks. */
import { posix } from "node:path";

/** One import: the importing file and what it names (a repo-relative file, or a bare specifier). */
export interface Import {
  from: string;
  to: string;
}

// An import clause holds only names, braces, commas, `*`, `type`, `as` and comments, so prose
// that says `from "…"` inside a doc comment or a string is not taken for an import.
const STATIC =
  /^[ \t]*(?:import|export)\s(?:[\w$*\s{},]|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*?\bfrom\s*["']([^"']+)["']/gm;
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers a module's source imports or re-exports, in order of appearance. */
export function specifiersOf(source: string): string[] {
  const found: [number, string][] = [];
  for (const pattern of [STATIC, SIDE_EFFECT, DYNAMIC]) {
    for (const match of source.matchAll(pattern)) found.push([match.index, match[1]]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, specifier]) => specifier);
}

/** A specifier resolved from a repo-relative file: relative ones to a repo-relative path. */
export function resolveSpecifier(from: string, specifier: string): string {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return specifier;
  return posix.normalize(posix.join(posix.dirname(from), specifier));
}

/** Repo-relative paths of every .ts file under dir (repo-relative too), sorted. */
export async function sourceFiles(root: string, dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${root}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await sourceFiles(root, path));
    else if (entry.isFile && path.endsWith(".ts")) found.push(path);
  }
  return found.sort();
}

/** Every import of every .ts file under dir, as repo-relative edges. */
export async function importsUnder(root: string, dir: string): Promise<Import[]> {
  const imports: Import[] = [];
  for (const from of await sourceFiles(root, dir)) {
    const source = await Deno.readTextFile(`${root}/${from}`);
    for (const specifier of specifiersOf(source)) {
      imports.push({ from, to: resolveSpecifier(from, specifier) });
    }
  }
  return imports;
}

/** Every cycle among the files, one per strongly connected component, as a closed path. */
export function cyclesOf(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of imports) {
    if (!next.has(from)) next.set(from, []);
    next.get(from)!.push(to);
  }
  // Tarjan's algorithm: components of more than one file, or a file importing itself, are cycles.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)?.includes(file)) {
      cycles.push(pathWithin(new Set(component), file, next));
    }
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** A closed path from start back to start that stays inside one component. */
function pathWithin(component: Set<string>, start: string, next: Map<string, string[]>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const to of next.get(queue[i]) ?? []) {
      if (!component.has(to)) continue;
      if (to === start) {
        const between: string[] = [];
        for (let at = queue[i]; at !== start; at = previous.get(at)!) between.unshift(at);
        return [start, ...between, start];
      }
      if (!previous.has(to)) {
        previous.set(to, queue[i]);
        queue.push(to);
      }
    }
  }
  return [start, start];
}
