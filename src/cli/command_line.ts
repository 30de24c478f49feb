import { parseArgs, type ParseArgsConfig } from "node:util";
import { EXIT_USAGE } from "../lib/startup_error.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** What a command line asks for: run with these option values, or print and exit. */
export type CommandLine<T> =
  | { kind: "run"; values: T }
  | { kind: "exit"; code: number; stdout?: string; stderr?: string };

/** Parses `args` against `options` and `-h/--help`; an unknown option or stray argument exits 2. */
export function parseCommandLine<T extends Record<string, unknown>>(
  args: readonly string[],
  usage: string,
  options: Options = {},
): CommandLine<T> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: "exit", code: EXIT_USAGE, stderr: `${reason}\n\n${usage}\n` };
  }
  if (values.help === true) return { kind: "exit", code: 0, stdout: `${usage}\n` };
  delete values.help;
  return { kind: "run", values: values as T };
}

/** Runs a command line's "exit" outcome: prints what it holds and ends the process. */
export function exitWith(outcome: { code: number; stdout?: string; stderr?: string }): never {
  if (outcome.stdout !== undefined) writeAllSync(Deno.stdout, outcome.stdout);
  if (outcome.stderr !== undefined) writeAllSync(Deno.stderr, outcome.stderr);
  Deno.exit(outcome.code);
}

function writeAllSync(to: { writeSync(bytes: Uint8Array): number }, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += to.writeSync(bytes.subarray(written));
}
