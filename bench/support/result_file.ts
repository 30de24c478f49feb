/**
 * The Markdown file a benchmark's run leaves in bench/results/: the machine, the versions, the
 * commit and the command, the guarded ratios when the benchmark has some, and everything the
 * benchmark printed. One file per benchmark, replaced by its next run, so git keeps the history.
 */
import { cpus, totalmem } from "node:os";
import type { GuardedRatio } from "../regression_check.ts";

/** Where results go unless `--results=DIR` says otherwise. */
export const RESULTS_DIR = decodeURIComponent(new URL("../results/", import.meta.url).pathname);
const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/** What one benchmark's file holds besides the machine and versions. */
export interface BenchResult {
  /** The file's name without `.md`, e.g. "http". */
  name: string;
  title: string;
  /** The command line as typed, e.g. "deno task bench --quick". */
  command: string;
  /** The lines the benchmark printed. */
  output: string[];
  ratios?: GuardedRatio[];
  /** A PostgreSQL server the benchmark used, for its version. */
  databaseUrl?: string;
}

/** Collects what console.log and console.error print until `stop`, still printing it. */
export function captureOutput(): { lines: string[]; stop: () => void } {
  const lines: string[] = [];
  const original = { log: console.log, error: console.error };
  const keep = (print: (...args: unknown[]) => void) => (...args: unknown[]) => {
    print(...args);
    const text = args.map((a) => typeof a === "string" ? a : Deno.inspect(a)).join(" ");
    lines.push(...stripAnsi(text).split("\n"));
  };
  console.log = keep(original.log);
  console.error = keep(original.error);
  return {
    lines,
    stop: () => Object.assign(console, original),
  };
}

/** Writes `<dir>/<name>.md`; resolves with its path. */
export async function writeResult(dir: string, result: BenchResult): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir.replace(/\/?$/, "/")}${result.name}.md`;
  await Deno.writeTextFile(path, await renderResult(result));
  return path;
}

/** The file's text. */
export async function renderResult(result: BenchResult): Promise<string> {
  const machine = describeMachine();
  const postgres = result.databaseUrl === undefined
    ? undefined
    : await postgresVersion(result.databaseUrl);
  const lines = [
    `# ${result.title}`,
    "",
    `Written by \`${result.command}\` at commit \`${await commitOf()}\`.`,
    "",
    ...table(["machine", "versions"], [[
      `${machine.cpu}, ${machine.cores} cores, ${machine.memory} memory`,
      `Deno ${Deno.version.deno}, V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript}` +
      (postgres === undefined ? "" : `, PostgreSQL ${postgres}`),
    ]]),
  ];
  if (result.ratios !== undefined && result.ratios.length > 0) {
    const rows = result.ratios.map((r) => [`\`${r.name}\``, r.value.toFixed(3), r.better]);
    lines.push("", "## Ratios", "", ...table(["ratio", "value", "better"], rows, [1]));
  }
  // Progress lines of a benchmark go too: they carry the per-round figures.
  const output = result.output.map((line) => line.trimEnd());
  while (output.length > 0 && output[0] === "") output.shift();
  while (output.length > 0 && output.at(-1) === "") output.pop();
  lines.push("", "## Figures", "", "```text", ...output, "```", "");
  return lines.join("\n");
}

/** A Markdown table laid out as `deno fmt` lays it out; `right` names right-aligned columns. */
export function table(header: string[], rows: string[][], right: number[] = []): string[] {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i].length)));
  const cell = (text: string, i: number) =>
    right.includes(i) ? text.padStart(widths[i]) : text.padEnd(widths[i]);
  const line = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = widths.map((w, i) => right.includes(i) ? `${"-".repeat(w - 1)}:` : "-".repeat(w));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)];
}

/** CPU model, logical cores and total memory (the bench task allows --allow-sys=cpus,systemMemoryInfo). */
function describeMachine(): { cpu: string; cores: number; memory: string } {
  try {
    const cpu = cpus()[0]?.model.replace(/\s+/g, " ").trim() || "unknown CPU";
    return { cpu, cores: cpus().length, memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB` };
  } catch {
    return { cpu: "unknown CPU", cores: navigator.hardwareConcurrency, memory: "unknown" };
  }
}

async function postgresVersion(url: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("psql", {
      args: ["-XAtc", "SHOW server_version", url],
      stdout: "piped",
      stderr: "null",
    }).output();
    const version = new TextDecoder().decode(out.stdout).trim();
    return out.success && version !== "" ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The short commit, with "+ changes" when the work tree differs from it. */
export async function commitOf(): Promise<string> {
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", {
      args,
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  };
  try {
    const commit = await git("rev-parse", "--short", "HEAD");
    if (commit === undefined) return "unknown";
    const changes = await git(
      "status",
      "--porcelain",
      "--untracked-files=no",
      "--",
      ":!bench/results",
    );
    return changes ? `${commit} + changes` : commit;
  } catch {
    return "unknown";
  }
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}
