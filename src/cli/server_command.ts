/** The `deno run` and `deno compile` command lines of the server, with flags from its config. */
import { fileURLToPath } from "node:url";
import type { Config } from "../config.ts";
import { serverPermissionFlags } from "../ops/permissions.ts";

/** The server's entry point, absolute, so the command works from any working directory. */
export const MAIN_MODULE = fileURLToPath(new URL("../main.ts", import.meta.url));

export interface RunOptions {
  /** Restart the server when a source file changes (`deno task dev`). */
  watch?: boolean;
  /** Use only the module cache (the container, which has no network at run time). */
  cachedOnly?: boolean;
}

/** The arguments after the Deno binary that run the server under least privilege. */
export function runArgs(
  config: Pick<Config, "dataDir" | "keySource" | "socket">,
  cwd: string,
  options: RunOptions = {},
): string[] {
  return [
    "run",
    ...(options.watch ? ["--watch"] : []),
    ...(options.cachedOnly ? ["--cached-only"] : []),
    ...serverPermissionFlags(config, cwd),
    MAIN_MODULE,
  ];
}

export interface CompileOptions {
  /** Where the binary goes; relative to the working directory. */
  output: string;
  /** Refuse to change the lock file (the container build). */
  frozen?: boolean;
}

/** The arguments after the Deno binary that compile the server with the flags baked in. */
export function compileArgs(
  config: Pick<Config, "dataDir" | "keySource" | "socket">,
  cwd: string,
  options: CompileOptions,
): string[] {
  return [
    "compile",
    ...(options.frozen ? ["--frozen"] : []),
    "--output",
    options.output,
    ...serverPermissionFlags(config, cwd),
    MAIN_MODULE,
  ];
}
