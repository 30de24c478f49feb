import { verifyDataDir } from "../store/jsonl/verify_log.ts";

/** `deno task verify`: reports every problem in DATA_DIR's log and snapshots; changes nothing. */
const dataDir = Deno.env.get("DATA_DIR") || "./data";
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
Deno.exit(fatal === 0 ? 0 : 1);
