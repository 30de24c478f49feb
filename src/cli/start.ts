/** `deno task start` and `dev`: runs the server under the permission flags its config needs. */
import { loadConfig } from "../config.ts";
import { ConfigError } from "../settings/config_error.ts";
import { LAUNCHER_ENV_VAR, PermissionPathError } from "../ops/permissions.ts";
import { exitWith, parseCommandLine } from "./command_line.ts";
import { SERVER_USAGE } from "./usage.ts";
import { runArgs } from "./server_command.ts";
import { RAISE_OPEN_FILES_SCRIPT } from "../ops/open_file_limit.ts";

const EXIT_CONFIG = 78;
/** The signals an operator or supervisor sends to stop or reload; each goes to the server. */
const FORWARDED: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

function parseOptions(): { watch: boolean; cachedOnly: boolean } {
  const command = parseCommandLine<{ watch?: boolean; "cached-only"?: boolean }>(
    Deno.args,
    SERVER_USAGE,
    { watch: { type: "boolean" }, "cached-only": { type: "boolean" } },
  );
  if (command.kind === "exit") exitWith(command);
  return {
    watch: command.values.watch === true,
    cachedOnly: command.values["cached-only"] === true,
  };
}

function serverCommand(options: { watch: boolean; cachedOnly: boolean }): string[] {
  try {
    const config = loadConfig((name) => Deno.env.get(name));
    return runArgs(config, Deno.cwd(), options);
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof PermissionPathError)) throw error;
    console.error(`customer-api cannot start: ${error.message}`);
    Deno.exit(EXIT_CONFIG);
  }
}

/**
 * What the server gets when unset: its OpenTelemetry service name, and no export of console
 * output, which is only the development banner (it holds a token); the logs go to stdout.
 */
function otelDefaults(): Record<string, string> {
  return {
    ...Deno.env.get("OTEL_SERVICE_NAME") ? {} : { OTEL_SERVICE_NAME: "customer-api" },
    ...Deno.env.get("OTEL_DENO_CONSOLE") ? {} : { OTEL_DENO_CONSOLE: "ignore" },
  };
}

/** Spawns the server through `sh`, which raises its open-file limit; directly where none is. */
function spawnServer(args: string[]): Deno.ChildProcess {
  const options: Deno.CommandOptions = {
    env: { [LAUNCHER_ENV_VAR]: "1", ...otelDefaults() },
    stdin: "piped",
    stdout: "inherit",
    stderr: "inherit",
  };
  try {
    const script = ["-c", RAISE_OPEN_FILES_SCRIPT, Deno.execPath(), ...args];
    return new Deno.Command("sh", { ...options, args: script }).spawn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return new Deno.Command(Deno.execPath(), { ...options, args }).spawn();
  }
}

const options = parseOptions();
const server = spawnServer(serverCommand(options));
// Held open and never written: when this process dies, even by SIGKILL, the server sees EOF.
const parentPipe = server.stdin.getWriter();
for (const signal of FORWARDED) {
  // `deno run --watch` stops only on SIGINT; after SIGTERM it waits for the next file change.
  const sent = options.watch && signal === "SIGTERM" ? "SIGINT" : signal;
  Deno.addSignalListener(signal, () => {
    try {
      server.kill(sent);
    } catch {
      // The server has already exited; its status follows.
    }
  });
}
const status = await server.status;
parentPipe.releaseLock();
// Deno reports a death by signal as 128 + its number, as a shell would.
Deno.exit(status.code);
