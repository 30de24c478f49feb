import { dataDirSetting } from "../config.ts";
import { verifyDataDir } from "../store/jsonl/verify_log.ts";
import { exitWith, parseCommandLine } from "./command_line.ts";
import { requireEventLog } from "./existing_log.ts";
import { VERIFY_USAGE } from "./usage.ts";

/** `deno task verify`: reports every problem in DATA_DIR's log and snapshots; changes nothing. */
async function verify(dataDir: string): Promise<number> {
  await requireEventLog(dataDir);
  const findings = await verifyDataDir(dataDir);
  for (const f of findings) {
    const where = f.line === undefined
      ? f.file
      : `${f.file} line ${f.line} (byte offset ${f.offset})`;
    console.log(`${f.fatal ? "DAMAGE" : "warning"}: ${where}: ${f.problem}`);
  }
  const fatal = findings.filter((f) => f.fatal).length;
  console.log(
    fatal === 0
      ? `${dataDir}: the log can be replayed`
      : `${dataDir}: ${fatal} problem(s) stop startup`,
  );
  return fatal === 0 ? 0 : 1;
}

if (import.meta.main) {
  const command = parseCommandLine(Deno.args, VERIFY_USAGE);
  if (command.kind === "exit") exitWith(command);
  try {
    Deno.exit(await verify(dataDirSetting((name) => Deno.env.get(name))));
  } catch (error) {
    console.error(`verify: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
