/**
 * Startup of two or more checkouts of this repository on one log, in alternating rounds: each
 * start from the log and then from the snapshot it left, paired with a bare `JSON.parse` of every
 * line measured just before it, as wall-time and CPU-time ratios, and RSS per live customer at
 * `ready`, after the compaction that follows a replay, and started from the snapshot. For a
 * before/after comparison on a shared machine, where wall time moves with the other load and CPU
 * time much less. Reads /proc, so it needs -A:
 *
 *   git archive <commit> | tar -x -C /tmp/before
 *   deno run -A bench/startup/startup_compare.ts --events=1000000 --rounds=3 /tmp/before .
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { loadConfig } from "../../src/config.ts";
import { writeEventLog } from "../support/event_log_fixture.ts";
import { parseEveryLine } from "./json_parse_baseline.ts";
import { median } from "./startup_report.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: {
    events: { type: "string", default: "200000" },
    rounds: { type: "string", default: "3" },
  },
  allowPositionals: true,
});
const events = Number(values.events);
const rounds = Number(values.rounds);
const checkouts = positionals.map((path) => Deno.realPathSync(path));
if (checkouts.length === 0) throw new Error("Name the checkouts to compare");

type ServerProcessModule = typeof import("../support/server_process.ts");
const servers: ServerProcessModule[] = await Promise.all(
  // Older checkouts kept bench/ flat.
  checkouts.map((dir) =>
    import(`file://${dir}/bench/support/server_process.ts`).catch(() =>
      import(`file://${dir}/bench/server_process.ts`)
    )
  ),
);
const root = await Deno.makeTempDir({ prefix: "customer-api-startup-compare-" });
try {
  const { segmentMaxBytes } = loadConfig(() => undefined);
  const log = await writeEventLog(`${root}/fixture`, events, { segmentMaxBytes });
  const restore = async (dir: string) => {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.mkdir(`${dir}/log`, { recursive: true });
    for (const path of log.paths) {
      await Deno.link(path, `${dir}/log/${path.slice(path.lastIndexOf("/") + 1)}`);
    }
  };
  await parseEveryLine(log.paths, events); // the first read after writing is slower
  await Deno.mkdir(`${root}/empty`);
  const empty = await start(servers[0], `${root}/empty`);
  const rows = checkouts.map(() => [] as Record<string, number>[]);
  for (let round = 0; round < rounds; round++) {
    const order = checkouts.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const dir = `${root}/data-${i}`;
      await restore(dir);
      const logBase = await baseline(log.paths);
      const fromLog = await start(servers[i], dir);
      const snapBase = await baseline(log.paths);
      const fromSnapshot = await start(servers[i], dir);
      const perCustomer = (rss: number) => (rss - empty.rssSettled) / fromLog.customers;
      const row = {
        logWall: fromLog.wall / logBase.wall,
        logCpu: fromLog.cpu / logBase.cpu,
        snapshotWall: fromSnapshot.wall / snapBase.wall,
        snapshotCpu: fromSnapshot.cpu / snapBase.cpu,
        rssReady: perCustomer(fromLog.rssReady),
        rssCompacted: perCustomer(fromLog.rssSettled),
        rssSnapshot: perCustomer(fromSnapshot.rssSettled),
      };
      rows[i].push(row);
      console.log(
        `round ${round + 1} ${checkouts[i]}: from the log ${row.logWall.toFixed(2)} × wall, ` +
          `${row.logCpu.toFixed(2)} × CPU; from the snapshot ${row.snapshotWall.toFixed(2)} × ` +
          `wall, ${row.snapshotCpu.toFixed(2)} × CPU; RSS B/customer at ready ` +
          `${row.rssReady.toFixed(0)}, after compaction ${row.rssCompacted.toFixed(0)}, from ` +
          `the snapshot ${row.rssSnapshot.toFixed(0)} (baselines ${logBase.wall.toFixed(2)} s / ` +
          `${logBase.cpu.toFixed(2)} s CPU; load ${Deno.loadavg()[0].toFixed(1)})`,
      );
    }
  }
  for (const [i, dir] of checkouts.entries()) {
    const m = (key: string) => median(rows[i].map((row) => row[key]));
    console.log(
      `${dir}: medians from the log ${m("logWall").toFixed(2)} × wall, ${m("logCpu").toFixed(2)} ` +
        `× CPU; from the snapshot ${m("snapshotWall").toFixed(2)} × wall, ` +
        `${m("snapshotCpu").toFixed(2)} × CPU; RSS B/customer at ready ` +
        `${m("rssReady").toFixed(0)}, after compaction ${m("rssCompacted").toFixed(0)}, from the ` +
        `snapshot ${m("rssSnapshot").toFixed(0)}`,
    );
  }
} finally {
  await Deno.remove(root, { recursive: true });
}

/** The baseline's wall and CPU seconds (this process: all its threads). */
async function baseline(paths: string[]): Promise<{ wall: number; cpu: number }> {
  const before = process.cpuUsage();
  const wall = await parseEveryLine(paths, events);
  const used = process.cpuUsage(before);
  return { wall, cpu: (used.user + used.system) / 1e6 };
}

/**
 * One start, stopped with SIGTERM (which writes a snapshot): wall seconds and the server's CPU
 * seconds to `ready`, its RSS then and one second after the compaction a replay starts.
 */
async function start(servers: ServerProcessModule, dataDir: string) {
  const server = servers.spawnServer(dataDir);
  try {
    const pid = (await server.waitFor("listening")).fields.pid as number;
    const replay = await server.waitFor("replay done");
    const ready = await server.waitFor("ready");
    const cpu = cpuSeconds(pid);
    const rssReady = (await server.memory()).rss;
    if ((replay.fields.events as number) > 0) await server.waitFor("compaction done");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rssSettled = (await server.memory()).rss;
    const wall = (ready.at - server.spawnedAt) / 1000;
    return { wall, cpu, rssReady, rssSettled, customers: replay.fields.customers as number };
  } finally {
    await server.stop("SIGTERM");
  }
}

/** User and system CPU seconds of a process, every thread, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ
}
