/**
 * Search at 100,000 and 1,000,000 customers, each goal beside its baseline from the same run:
 * startup and RSS against the tree before the search indexes, selective searches by one client
 * against GET one, GET one beside unnarrowable searches against GET one alone, and POST and
 * PATCH against the tree before. `deno run -A bench/search/search_bench.ts [--quick]`
 */
import { parseArgs } from "node:util";
import { ChildGroup } from "../support/child_processes.ts";
import { writeCustomerFixture } from "../support/customer_fixture.ts";
import { mintToken, randomSecret } from "../support/service_token.ts";
import { processMemory } from "../support/server_process.ts";
import { exportTree, type Tree } from "../support/other_tree.ts";
import { ensureWrk } from "../support/wrk.ts";
import type { GuardedRatio } from "../regression_check.ts";
import { type ServiceTarget, startService } from "../http/http_targets.ts";
import { measure, writeIdsFile } from "../http/http_workloads.ts";
import { printSearchReport, type SizeReport } from "./search_report.ts";
import { getBesideScans, oneClient } from "./search_load.ts";
import { previousPaths, sampleCustomers, SELECTIVE, selectivePaths } from "./search_queries.ts";

/** The last commit without search indexes: "today's" startup, memory and writes. */
export const BEFORE_SEARCH = "fa8b29f";
const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/** The parts of the benchmark; each runs on the servers the startup part left running. */
export const SEARCH_PARTS = ["startup", "selective", "beside", "writes"] as const;
export type SearchPart = typeof SEARCH_PARTS[number];

export interface SearchBenchOptions {
  quick?: boolean;
  /** Some of SEARCH_PARTS (default all); without "startup" each tree starts once. */
  parts?: SearchPart[];
  sizes?: number[];
  /** The tree to compare startup, memory and writes with (default BEFORE_SEARCH). */
  before?: string;
  rounds?: number;
  seconds?: number;
}

/** Runs the benchmark and prints its tables; resolves with each size's figures and ratios. */
export async function runSearchBench(
  options: SearchBenchOptions,
): Promise<{ reports: SizeReport[]; ratios: GuardedRatio[] }> {
  const quick = options.quick ?? false;
  const sizes = options.sizes ?? (quick ? [20_000] : [100_000, 1_000_000]);
  const rounds = options.rounds ?? (quick ? 1 : 3);
  const seconds = options.seconds ?? (quick ? 1 : 5);
  await ensureWrk();
  const before = await exportTree(options.before ?? BEFORE_SEARCH);
  if (before === undefined) throw new Error(`search: no tree "${options.before ?? BEFORE_SEARCH}"`);
  const root = await Deno.makeTempDir({ prefix: "customer-api-search-bench-" });
  const group = new ChildGroup(root);
  const reports: SizeReport[] = [];
  const ratios: GuardedRatio[] = [];
  try {
    for (const size of sizes) {
      const parts = options.parts ?? [...SEARCH_PARTS];
      reports.push(await measureSize(group, root, before, size, rounds, seconds, quick, parts));
      ratios.push(...printSearchReport(reports.at(-1)!, before.label));
      await group.stopAll();
    }
  } finally {
    await group.stopAll();
    await before.remove();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  return { reports, ratios };
}

async function measureSize(
  group: ChildGroup,
  root: string,
  before: Tree,
  size: number,
  rounds: number,
  seconds: number,
  quick: boolean,
  parts: SearchPart[],
): Promise<SizeReport> {
  const secret = randomSecret();
  const token = await mintToken(secret);
  const seed = `${root}/seed-${size}`;
  const fixture = await writeCustomerFixture(seed, size, false, { names: "varied" });
  const idsFile = `${root}/ids-${size}.txt`;
  await writeIdsFile(idsFile, fixture.ids, undefined, 10_000);
  const trees = [{ name: "after", root: REPO_ROOT }, { name: "before", root: before.root }];
  const report: SizeReport = {
    customers: size,
    events: fixture.events,
    startup: { after: [], before: [] },
    selective: {},
    beside: { alone: [], with: [], scans: [] },
    writes: { post: { after: [], before: [] }, patch: { after: [], before: [] } },
  };
  // Startup from the log, then from the snapshot its shutdown wrote, each tree in turn.
  const running: Record<string, ServiceTarget> = {};
  const starts = parts.includes("startup") ? rounds : 1;
  for (let round = 0; round < starts; round++) {
    for (const tree of trees) {
      const dir = `${root}/${tree.name}-${size}-${round}`;
      await copyDir(seed, dir);
      const start = (name: string) =>
        startService(group, dir, {
          secret,
          logLevel: "info",
          root: tree.root,
          name,
          waitForIndex: tree.name === "after",
          // Snapshots only at shutdown: at a million customers one takes seconds, and landing in
          // one tree's run and not the other's it would decide the ratio.
          env: { SNAPSHOT_EVERY: "100000000" },
        });
      const fromLog = await start(`${tree.name}-log`);
      const rssLog = await settledRss(fromLog.pid);
      await group.stop(fromLog.pid);
      const fromSnapshot = await start(`${tree.name}-snapshot`);
      const rssSnapshot = await settledRss(fromSnapshot.pid);
      report.startup[tree.name as "after"].push({
        logSeconds: fromLog.startupSeconds,
        snapshotSeconds: fromSnapshot.startupSeconds,
        indexLogMs: fromLog.indexMs,
        indexSnapshotMs: fromSnapshot.indexMs,
        rssLog,
        rssSnapshot,
      });
      if (round < starts - 1) await group.stop(fromSnapshot.pid);
      else running[tree.name] = fromSnapshot;
    }
  }
  const after = running.after;
  if (parts.includes("selective")) await measureSelective();
  if (parts.includes("beside")) await measureBeside();
  if (parts.includes("writes")) await measureWrites();
  return report;

  async function measureSelective() {
    const customers = await sampleCustomers(after.url, token, fixture.ids, quick ? 300 : 4000);
    const floorPaths = customers.map((c) => `/api/customers/${c.id}`);
    report.selective.floor = await oneClient(after.url, floorPaths, token, seconds, root);
    for (const kind of SELECTIVE) {
      report.selective[kind] = await oneClient(
        after.url,
        selectivePaths(kind, customers),
        token,
        seconds,
        root,
      );
      const previous = previousPaths(kind, customers);
      if (previous !== undefined) {
        report.selective[`before-${kind}`] = await oneClient(
          running.before.url,
          previous,
          token,
          seconds,
          root,
        );
      }
      await group.trimOutput();
    }
  }

  async function measureBeside() {
    for (let round = 0; round < rounds; round++) {
      report.beside.alone.push(
        (await getBesideScans(after.url, idsFile, token, seconds * 2, 0)).get,
      );
      const beside = await getBesideScans(after.url, idsFile, token, seconds * 2, 2);
      report.beside.with.push(beside.get);
      report.beside.scans.push(...beside.scans);
      await group.trimOutput();
    }
  }

  async function measureWrites() {
    const load = { idsFile, token, seconds };
    for (let round = 0; round < rounds; round++) {
      for (const workload of ["post", "patch"] as const) {
        for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
          const { url, pid } = running[tree.name];
          const result = await measure({ url, pid, flavour: "service" }, workload, load);
          report.writes[workload][tree.name as "after"].push(result);
          await group.trimOutput();
        }
      }
    }
  }
}

/**
 * The RSS once it has settled after startup, its compaction and the index build: V8 gives back
 * the heap a build's garbage grew within seconds, and that is not memory the index holds. Settled
 * means it fell by under 1 % over 3 s (at most 30 s), for either tree alike.
 */
async function settledRss(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let waited = 0; waited < 30_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    samples.push((await processMemory(pid)).rss);
    const before = samples[samples.length - 7];
    if (before !== undefined && samples[samples.length - 1] > before * 0.99) break;
  }
  return samples[samples.length - 1];
}

async function copyDir(from: string, to: string): Promise<void> {
  const { success } = await new Deno.Command("cp", { args: ["-r", from, to] }).output();
  if (!success) throw new Error(`cp -r ${from} ${to} failed`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      parts: { type: "string" },
      sizes: { type: "string" },
      before: { type: "string" },
      rounds: { type: "string" },
      seconds: { type: "string" },
    },
  });
  await runSearchBench({
    quick: values.quick,
    parts: values.parts?.split(",") as SearchPart[] | undefined,
    sizes: values.sizes?.split(",").map(Number),
    before: values.before,
    rounds: values.rounds === undefined ? undefined : Number(values.rounds),
    seconds: values.seconds === undefined ? undefined : Number(values.seconds),
  });
}
