/** Looks at a DATA_DIR from outside, as an operator or auditor would, and runs the ops tasks on it. */
import { runDenoTask, type TaskResult } from "./deno_task.ts";

export type { TaskResult } from "./deno_task.ts";

/** Paths of every regular file anywhere under dir, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await listFiles(path));
    else if (entry.isFile) found.push(path);
  }
  return found.sort();
}

/** Every file under dir with its bytes: compare two of these to prove nothing changed. */
export async function readTree(dir: string): Promise<Record<string, Uint8Array>> {
  const tree: Record<string, Uint8Array> = {};
  for (const path of await listFiles(dir)) tree[path.slice(dir.length)] = await Deno.readFile(path);
  return tree;
}

/** Copies a directory tree (regular files and folders). */
export async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** The forms a value can take on disk: raw UTF-8, JSON-escaped, and JSON with \u escapes. */
export function encodedForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const ascii = json.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return [...new Set([value, json, ascii])];
}

/** Where a needle was found in a byte-by-byte scan. */
export interface Hit {
  file: string;
  needle: string;
  offset: number;
}

/**
 * Scans every byte of every file under dir for each needle in each of its encoded forms,
 * ignoring ASCII case (an email may be stored in another case than it was sent).
 */
export async function scanTree(dir: string, needles: readonly string[]): Promise<Hit[]> {
  const hits: Hit[] = [];
  const forms = needles.flatMap((needle) =>
    encodedForms(needle).map((form) => ({ needle, bytes: lowerAscii(encode(form)) }))
  );
  for (const file of await listFiles(dir)) {
    // A running compaction may rename or remove a file between listing and reading it.
    const bytes = await Deno.readFile(file).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    });
    if (bytes === undefined) continue;
    const haystack = lowerAscii(bytes);
    for (const { needle, bytes } of forms) {
      const offset = indexOfBytes(haystack, bytes);
      if (offset !== -1) hits.push({ file, needle, offset });
    }
  }
  return hits;
}

function encode(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function lowerAscii(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  for (let i = 0; i < out.length; i++) if (out[i] >= 0x41 && out[i] <= 0x5a) out[i] += 0x20;
  return out;
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  if (needle.length === 0) return 0;
  let from = 0;
  while (true) {
    const at = haystack.indexOf(needle[0], from);
    if (at === -1 || at + needle.length > haystack.length) return -1;
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
    from = at + 1;
  }
}

/** `deno task verify` on dataDir, as an operator runs it. */
export function runVerify(dataDir: string): Promise<TaskResult> {
  return runDenoTask("verify", [], { DATA_DIR: dataDir });
}

/** `deno task compact` on dataDir, as an operator runs it. */
export function runCompact(dataDir: string): Promise<TaskResult> {
  return runDenoTask("compact", [], { DATA_DIR: dataDir });
}

/** The JSON log lines a server printed whose `msg` is msg, in order. */
// deno-lint-ignore no-explicit-any -- log lines carry free-form fields
export function logLines(stdout: string, msg: string): any[] {
  return stdout.split("\n").flatMap((line) => {
    try {
      const entry = JSON.parse(line);
      return entry?.msg === msg ? [entry] : [];
    } catch {
      return [];
    }
  });
}

/** What a server's "replay done" line reported at startup. */
export interface ReplayDone {
  snapshot_seq: number;
  snapshot_records: number;
  events: number;
  customers: number;
  ms: number;
}

/** The single "replay done" line of one server life. */
export function replayDone(stdout: string): ReplayDone {
  const lines = logLines(stdout, "replay done");
  if (lines.length !== 1) throw new Error(`${lines.length} "replay done" lines in:\n${stdout}`);
  return lines[0];
}

/**
 * The PIDs of running servers (`deno run … /…/src/main.ts`, not their launchers) whose DATA_DIR
 * is dataDir. Deno grants /proc only with --allow-all, so a `deno eval` child (which has every
 * permission) looks there.
 */
export async function serverPids(dataDir: string): Promise<number[]> {
  const script = `
    const pids = [];
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^[0-9]+$/.test(entry.name)) continue;
      try {
        const args = Deno.readTextFileSync("/proc/" + entry.name + "/cmdline").split("\\0");
        if (!args.some((arg) => arg.endsWith("/src/main.ts"))) continue;
        const env = Deno.readTextFileSync("/proc/" + entry.name + "/environ").split("\\0");
        if (env.includes("DATA_DIR=" + Deno.args[0])) pids.push(Number(entry.name));
      } catch {
        // The process ended while being looked at.
      }
    }
    console.log(JSON.stringify(pids));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script, dataDir],
    stdin: "null",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error("Could not list the server processes from /proc");
  return JSON.parse(new TextDecoder().decode(output.stdout));
}
