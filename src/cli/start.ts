/**
 * `deno task start` and `deno task dev`: reads the configuration, derives the server's permission
 * flags from it (src/ops/permissions.ts) and runs the server under exactly those, passing signals
 * on and exiting with the server's exit code.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.ts";
import { LAUNCHER_ENV_VAR, PermissionPathError, SETTINGS_ENV_VARS } from "../ops/permissions.ts";
import { runArgs } from "./server_command.ts";

/** EX_CONFIG: the configuration is wrong. */
const EXIT_CONFIG = 78;
/** EX_USAGE-like code for an unknown option, as command-line tools do. */
const EXIT_USAGE = 2;
/** The signals an operator or supervisor sends to stop or reload; each goes to the server. */
const FORWARDED: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

const USAGE = `Usage: deno task start [--watch] [--cached-only]

Starts customer-api under the least Deno permissions its configuration needs: read and write on
DATA_DIR (and SOCKET), read on JWKS_FILE, network, and the environment variables below.

Options:
  --watch        restart the server when a source file changes (deno task dev)
  --cached-only  load modules from the cache only (the container)
  --help         print this help

Environment: ${SETTINGS_ENV_VARS.join(", ")}`;

function parseOptions(): { watch: boolean; cachedOnly: boolean } {
  try {
    const { values } = parseArgs({
      args: Deno.args,
      options: {
        watch: { type: "boolean", default: false },
        "cached-only": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      Deno.exit(0);
    }
    return { watch: values.watch, cachedOnly: values["cached-only"] };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    Deno.exit(EXIT_USAGE);
  }
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

const options = parseOptions();
const server = new Deno.Command(Deno.execPath(), {
  args: serverCommand(options),
  env: { [LAUNCHER_ENV_VAR]: "1" },
  stdin: "piped",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
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
