/** `deno task migrate --to postgres|jsonl`: checks its input, then runs the copy narrowly. */
import { fileURLToPath } from "node:url";
import { ConfigError } from "../settings/config_error.ts";
import {
  databaseUrlSetting,
  dataDirSetting,
  idempotencyMaxKeysSetting,
  segmentMaxBytesSetting,
} from "../config.ts";
import { EXIT_USAGE } from "../lib/startup_error.ts";
import { migratePermissionFlags, PermissionPathError } from "../ops/permissions.ts";
import { exitWith, parseCommandLine } from "./command_line.ts";
import { MIGRATE_USAGE } from "./usage.ts";

const COPY_MODULE = fileURLToPath(new URL("./migrate_copy.ts", import.meta.url));

const command = parseCommandLine<{ to?: string }>(Deno.args, MIGRATE_USAGE, {
  to: { type: "string" },
});
if (command.kind === "exit") exitWith(command);
const to = command.values.to;
if (to !== "postgres" && to !== "jsonl") {
  exitWith({ code: EXIT_USAGE, stderr: `--to must be postgres or jsonl\n\n${MIGRATE_USAGE}\n` });
}
let flags: string[];
try {
  const env = (name: string) => Deno.env.get(name);
  const databaseUrl = databaseUrlSetting(env);
  if (databaseUrl === undefined) throw new ConfigError("DATABASE_URL must be set");
  idempotencyMaxKeysSetting(env);
  segmentMaxBytesSetting(env);
  flags = migratePermissionFlags(dataDirSetting(env), databaseUrl, Deno.cwd());
} catch (error) {
  if (!(error instanceof ConfigError || error instanceof PermissionPathError)) throw error;
  exitWith({ code: 78, stderr: `migrate: ${error.message}\n` });
}
const copy = new Deno.Command(Deno.execPath(), {
  args: ["run", ...flags, COPY_MODULE, to],
  stdin: "null",
  stdout: "inherit",
  stderr: "inherit",
});
Deno.exit((await copy.spawn().status).code);
