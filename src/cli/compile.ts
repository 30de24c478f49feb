/** `deno task compile`: the standalone binary, its configuration's permission flags baked in. */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { ConfigError } from "../settings/config_error.ts";
import { PermissionPathError } from "../ops/permissions.ts";
import { compileArgs } from "./server_command.ts";

const USAGE = `Usage: deno task compile [--output PATH] [--frozen]

Compiles customer-api into one binary that may read and write DATA_DIR (and SOCKET) and read
JWKS_FILE as set now; relative paths are made absolute against the working directory.

Options:
  --output PATH  where the binary goes (default dist/customer-api)
  --frozen       fail if the lock file would change
  --help         print this help

Environment: DATA_DIR, JWKS_FILE, SOCKET (and the others the server checks); DENORT_BIN`;

let options: { output: string; frozen: boolean };
try {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      output: { type: "string", default: "dist/customer-api" },
      frozen: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  options = { output: values.output, frozen: values.frozen };
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  Deno.exit(2);
}

let args: string[];
try {
  args = compileArgs(loadConfig((name) => Deno.env.get(name)), Deno.cwd(), options);
} catch (error) {
  if (!(error instanceof ConfigError || error instanceof PermissionPathError)) throw error;
  console.error(`customer-api cannot compile: ${error.message}`);
  Deno.exit(78);
}
console.error(`deno ${args.join(" ")}`);
const { code } = await new Deno.Command(Deno.execPath(), { args }).spawn().status;
Deno.exit(code);
