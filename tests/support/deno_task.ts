/** Runs the project's commands the way the README tells users to: `deno task <name>`. */
import { SERVER_ENV_VARS } from "../../src/ops/permissions.ts";

/** The checkout: `deno task` runs every task here, whatever the caller's directory. */
export const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/**
 * The test runner's environment without any server setting (which would make runs
 * irreproducible), plus `settings`: what a user would have set in their shell.
 */
export function userEnv(settings: Record<string, string>): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of SERVER_ENV_VARS) delete env[name];
  return { ...env, NO_COLOR: "1", ...settings };
}

/**
 * `deno task <name> <args>` from the repository root with exactly `env`; pipes for stdout/err.
 * With `openFileLimit`, the shell lowers the limit first, as `ulimit -n N; deno task …` would
 * (both soft and hard limits, or each as given).
 */
export function denoTask(
  name: string,
  args: string[],
  env: Record<string, string>,
  openFileLimit?: number | { soft: number; hard: number },
): Deno.Command {
  const task = [Deno.execPath(), "task", name, ...args];
  const ulimit = typeof openFileLimit === "number"
    ? `ulimit -n ${openFileLimit}`
    : `ulimit -Sn ${openFileLimit?.soft} && ulimit -Hn ${openFileLimit?.hard}`;
  const [command, ...rest] = openFileLimit === undefined
    ? task
    : ["bash", "-c", `${ulimit} && exec "$0" "$@"`, ...task];
  return new Deno.Command(command, {
    args: rest,
    cwd: REPO_ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** stderr without the "Task <name> <command>" line `deno task` prints before the command's own. */
export function withoutTaskHeader(stderr: string): string {
  return stderr.replace(/^Task \S+ [^\n]*\n/, "");
}

/** How a task ended. */
export interface TaskResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno task <name> <args>` to its end with the user settings `settings`. */
export async function runDenoTask(
  name: string,
  args: string[],
  settings: Record<string, string>,
): Promise<TaskResult> {
  const output = await denoTask(name, args, userEnv(settings)).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: withoutTaskHeader(decoder.decode(output.stderr)),
  };
}
