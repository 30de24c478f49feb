/**
 * The history check, long: `deno task check-history --minutes 10 [--store postgres|jsonl]`. Runs
 * the workload with a fault every few seconds, checks it, prints the report and writes it to
 * bench/results/history-<store>.md; exits 1 on any anomaly.
 */
import { parseArgs } from "node:util";
import { historyOnJsonl, historyOnReplicas } from "../support/history_run.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    minutes: { type: "string", default: "10" },
    store: { type: "string", default: "postgres" },
    clients: { type: "string", default: "24" },
    customers: { type: "string", default: "6" },
  },
});
const store = values.store === "jsonl" ? "jsonl" : "postgres";
const options = {
  seconds: Number(values.minutes) * 60,
  clients: Number(values.clients),
  customers: Number(values.customers),
  faultEveryMs: 8000,
};
const result = store === "jsonl" ? await historyOnJsonl(options) : await historyOnReplicas(options);
const where = store === "jsonl" ? "one server on a JSONL DATA_DIR" : "three replicas on PostgreSQL";
const kills = result.faults.filter((fault) => fault.startsWith("kill")).length;
const cuts = result.faults.length - kills;
const lines = [
  `# History check: ${where}`,
  "",
  `${values.minutes} minutes, ${options.clients} clients on ${options.customers} customers, ` +
  `${kills} kill -9 and ${cuts} database cuts. Made by \`deno task check-history\`.`,
  "",
  "| what was checked | count |",
  "|---|---|",
  ...Object.entries(result.counts).map(([name, count]) => `| ${name} | ${count} |`),
  `| anomalies | ${result.anomalies.length} |`,
  "",
  ...result.anomalies.slice(0, 50).map((text) => `- ${text}`),
];
const text = lines.join("\n") + "\n";
console.log(text);
await Deno.mkdir(new URL("../../bench/results/", import.meta.url), { recursive: true });
const resultFile = new URL(`../../bench/results/history-${store}.md`, import.meta.url);
await Deno.writeTextFile(resultFile, text);
// Laid out as deno fmt writes Markdown, so the checkout stays formatted.
await new Deno.Command(Deno.execPath(), { args: ["fmt", resultFile.pathname], stderr: "null" })
  .output();
Deno.exit(result.anomalies.length === 0 ? 0 : 1);
