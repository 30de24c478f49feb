/**
 * How the service's GET one, list and POST throughput and its startup change with the number of
 * customers (10k, 100k, 1M): one service per size, a baseline GET run beside each for scale.
 * `deno run -A bench/http/http_scale.ts [--sizes=10000,100000,1000000] [--rounds=N] [--seconds=S]`
 */
import { parseArgs } from "node:util";
import { ChildGroup } from "../support/child_processes.ts";
import { writeCustomerFixture } from "../support/customer_fixture.ts";
import { mintToken, randomSecret } from "../support/service_token.ts";
import { startBaseline, startService } from "./http_targets.ts";
import { drive, type Load, median, settle, type Workload, writeIdsFile } from "./http_workloads.ts";
import { ensureWrk, type WrkResult } from "../support/wrk.ts";
import { processMemory } from "../support/server_process.ts";

/** Sizes and repeats. */
export interface ScaleBenchOptions {
  sizes?: number[];
  rounds?: number;
  seconds?: number;
}

/** One size's medians. */
export interface ScaleRow {
  customers: number;
  events: number;
  startupSeconds: number;
  replayMs: number;
  /** The server's RSS once started and compacted (plus a second), and after the runs. */
  rssStarted: number;
  rssAfterRuns: number;
  /** Median requests/s per workload, and of the baseline's GET run beside them. */
  rps: Record<ScaleWorkload | "baseline", number>;
}

type ScaleWorkload = Extract<Workload, "get" | "list" | "post">;
const WORKLOADS: ScaleWorkload[] = ["get", "list", "post"];
const MIB = 1024 * 1024;
/** GET one rotates over this many ids, picked at random from all of them. */
const ID_SAMPLE = 10_000;

/** Runs the scaling benchmark and prints its table. */
export async function runScaleBench(options: ScaleBenchOptions): Promise<ScaleRow[]> {
  const sizes = options.sizes ?? [10_000, 100_000, 1_000_000];
  const rounds = options.rounds ?? 3;
  const seconds = options.seconds ?? 3;
  await ensureWrk();
  const root = await Deno.makeTempDir({ prefix: "customer-api-scale-bench-" });
  const group = new ChildGroup(root);
  try {
    const secret = randomSecret();
    const baseline = await startBaseline(group);
    console.log(
      `\nscaling: wrk -t1 -c64, ${rounds} round(s) of ${seconds} s per run, medians; ` +
        `GET one rotates over ${ID_SAMPLE.toLocaleString("en-US")} ids`,
    );
    const header = ["customers", "events", "startup s", "replay s", "GET one", "list 100", "POST"];
    console.log(
      header.map((h, i) => i === 0 ? h.padEnd(11) : h.padStart(11)).join("") +
        "   baseline GET" + "RSS MiB".padStart(10) + "B/customer".padStart(12) +
        "after runs".padStart(12),
    );
    const rows: ScaleRow[] = [];
    for (const size of sizes) {
      const dataDir = `${root}/data-${size}`;
      const fixture = await writeCustomerFixture(dataDir, size);
      const idsFile = `${root}/ids-${size}.txt`;
      await writeIdsFile(idsFile, fixture.ids, undefined, ID_SAMPLE);
      const load: Load = { idsFile, token: await mintToken(secret), seconds };
      const service = await startService(group, dataDir, { secret, logLevel: "info" });
      // startService waited for the compaction that follows a replay; a second more to settle.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const rssStarted = (await processMemory(service.pid)).rss;
      await drive(service.url, "service", "get", { ...load, seconds: 1 });
      const runs: Record<ScaleWorkload | "baseline", WrkResult[]> = {
        get: [],
        list: [],
        post: [],
        baseline: [],
      };
      for (let round = 0; round < rounds; round++) {
        runs.baseline.push(await drive(baseline.url, "baseline", "get", load));
        for (const w of WORKLOADS) {
          runs[w].push(await drive(service.url, "service", w, load));
          await settle(service.url, "service");
          await group.trimOutput();
        }
      }
      const rssAfterRuns = (await processMemory(service.pid)).rss;
      await group.stop(service.pid);
      await Deno.remove(dataDir, { recursive: true });
      const rps = (results: WrkResult[]) => median(results.map((r) => r.rps));
      const row: ScaleRow = {
        customers: size,
        events: fixture.events,
        startupSeconds: service.startupSeconds,
        replayMs: service.replay!.ms,
        rssStarted,
        rssAfterRuns,
        rps: {
          get: rps(runs.get),
          list: rps(runs.list),
          post: rps(runs.post),
          baseline: rps(runs.baseline),
        },
      };
      rows.push(row);
      const n = (value: number) => Math.round(value).toLocaleString("en-US").padStart(11);
      console.log(
        size.toLocaleString("en-US").padEnd(11) + n(row.events) +
          row.startupSeconds.toFixed(2).padStart(11) +
          (row.replayMs / 1000).toFixed(2).padStart(11) +
          n(row.rps.get) + n(row.rps.list) + n(row.rps.post) + n(row.rps.baseline).padStart(15) +
          (rssStarted / MIB).toFixed(1).padStart(10) +
          Math.round(rssStarted / size).toLocaleString("en-US").padStart(12) +
          (rssAfterRuns / MIB).toFixed(1).padStart(12),
      );
    }
    return rows;
  } finally {
    await group.stopAll();
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string" },
      rounds: { type: "string" },
      seconds: { type: "string" },
    },
  });
  await runScaleBench({
    sizes: values.sizes?.split(",").map(Number),
    rounds: values.rounds === undefined ? undefined : Number(values.rounds),
    seconds: values.seconds === undefined ? undefined : Number(values.seconds),
  });
}
