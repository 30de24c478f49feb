/**
 * `deno task bench [options]`: runs the benchmarks, the HTTP one first. `deno task bench --help`
 * prints the options (USAGE below). In short:
 *
 * - `--quick`: a run of about a minute and a half that CI does (`.ci/run`): prints every table and
 *   ratio, judges nothing, fails only if a benchmark crashes.
 * - `--check`: measures the guarded ratios (service ÷ contract floor req/s, startup × a bare
 *   `JSON.parse`, RSS per customer) in one run and fails, one line per ratio, when any is more
 *   than 25 % worse than in `bench/baseline.json`. `--check --write-baseline` stores this run's
 *   ratios as the baseline instead (run it on the release machine, commit the file).
 * - `--only=...` picks benchmarks; `--scale` adds the 10k/100k/1M scaling table; `--soak` runs
 *   only the soak.
 *
 * To add a benchmark: one entry in BENCHES (its name for `--only`, whether it runs by default,
 * and how to run it), its options in OPTIONS and a line in USAGE.
 */
import { parseArgs } from "node:util";
import { runAuthCacheBench } from "./http/auth_cache_bench.ts";
import { httpRatios, runCheck, startupRatios } from "./check.ts";
import type { GuardedRatio } from "./regression_check.ts";
import { captureOutput, RESULTS_DIR, writeResult } from "./support/result_file.ts";
import { runHttpBench } from "./http/http_bench.ts";
import { type Workload, WORKLOAD_TITLES } from "./http/http_workloads.ts";
import { runScaleBench } from "./http/http_scale.ts";
import { runStartupBench } from "./startup/startup_bench.ts";
import { runSoak } from "./http/soak.ts";
import { runWebhookBench } from "./webhooks/webhook_bench.ts";
import { FEED_PARTS, runFeedBench } from "./feed/feed_bench.ts";
import {
  DATABASE_URL,
  POSTGRES_PARTS,
  type PostgresPart,
  runPostgresBench,
} from "./postgres/postgres_bench.ts";
import { runPostgresStartupBench } from "./postgres/postgres_startup_bench.ts";
import { runSearchBench, SEARCH_PARTS, type SearchPart } from "./search/search_bench.ts";
import { runTracingBench } from "./tracing/tracing_bench.ts";

const USAGE = `deno task bench [options]

  --quick                  a short run of every benchmark (CI): prints, judges nothing
  --check                  compare this run's ratios with bench/baseline.json; exit 1 when any is
                           more than 25 % worse (about 4 minutes)
  --check --against=REF    compare with the ratios of another tree (a git commit, branch or tag,
                           or a checkout's directory) measured in the same run; without it, the
                           commit of bench/baseline.json when git has it, else its stored ratios
  --check --write-baseline measure and store the ratios as the new bench/baseline.json
  --only=NAMES             some of: http,scale,auth,startup,webhooks,feed,search,tracing,postgres,
                           pgstartup (default all but scale and pgstartup)
  --scale                  add the scaling table (GET one, list, POST, startup, RSS)
  --scale-sizes=N,N,...    its sizes (default 10000,100000,1000000)
  --events=N --runs=N      size and repeats of the startup benchmark (default 1,000,000 and 3)
  --cpu-prof=DIR           one more start from the log and one from the snapshot under --cpu-prof
  --http-rounds=N --http-seconds=S          rounds and seconds per run of the HTTP benchmark
  --http-cpu-prof=DIR --http-cpu-prof-workloads=get,list,post,put   profile the service
  --http-workloads=get,list,post,put        the HTTP benchmark's workloads (default all)
  --http-before=DIR        also run the service of another checkout (before a change) in the
                           same alternating rounds
  --webhooks-rounds=N --webhooks-latency-runs=N  off/on pairs (8) and paced runs (3) of the
                           webhook benchmark
  --webhooks-cpu-prof=DIR  profile the service under the webhook benchmark
  --feed-parts=latency,idle,history         parts of the feed benchmark (default all)
  --feed-rounds=N          rounds of its write throughput with idle streams (default 5) and of
                           its latency runs (default 1)
  --feed-before=DIR        also run the server of another checkout (before a change) in the same
                           rounds of the write throughput with idle streams and of the latency
  --feed-streams=N,N,...   the stream counts of its latency part (default 1,100,1000)
  --search-parts=startup,selective,beside,writes  parts of the search benchmark (default all)
  --search-sizes=N,N,...   its customer counts (default 100000,1000000)
  --search-rounds=N --search-seconds=S      its rounds (3) and seconds per run (5)
  --search-before=REF      the tree without search indexes it compares with (a git commit or a
                           checkout's directory; default the last commit before them)
  --tracing-rounds=N --tracing-seconds=S    rounds of "before" and "off" (24) and seconds per
                           run (3) of the tracing benchmark
  --tracing-before=REF     the tree without tracing it compares with (a git commit or a checkout's
                           directory; default the last commit before it)
  --postgres-parts=floors,one,three,webhooks  parts of the PostgreSQL benchmark besides pgbench
                           (default all)
  --postgres-rounds=N --postgres-seconds=S  its rounds (3) and seconds per run (8)
  --postgres-before=DIR    also run the 1-replica creates of another checkout's service in the
                           same rounds
  --soak [--soak-minutes=N]                 only the soak (default 15 minutes)
  --results=DIR            where each benchmark writes its result file (default bench/results/)
  --no-results             write no result file
  --help                   this text`;

const OPTIONS = {
  help: { type: "boolean", default: false },
  quick: { type: "boolean", default: false },
  check: { type: "boolean", default: false },
  "write-baseline": { type: "boolean", default: false },
  against: { type: "string" },
  results: { type: "string" },
  "no-results": { type: "boolean", default: false },
  only: { type: "string" },
  events: { type: "string" },
  runs: { type: "string" },
  "cpu-prof": { type: "string" },
  "http-rounds": { type: "string" },
  "http-seconds": { type: "string" },
  "http-cpu-prof": { type: "string" },
  "http-cpu-prof-workloads": { type: "string" },
  "http-workloads": { type: "string" },
  "http-before": { type: "string" },
  scale: { type: "boolean", default: false },
  "scale-sizes": { type: "string" },
  "webhooks-rounds": { type: "string" },
  "webhooks-latency-runs": { type: "string" },
  "webhooks-cpu-prof": { type: "string" },
  "feed-parts": { type: "string" },
  "feed-rounds": { type: "string" },
  "feed-before": { type: "string" },
  "feed-streams": { type: "string" },
  "search-parts": { type: "string" },
  "search-sizes": { type: "string" },
  "search-rounds": { type: "string" },
  "search-seconds": { type: "string" },
  "search-before": { type: "string" },
  "tracing-rounds": { type: "string" },
  "tracing-seconds": { type: "string" },
  "tracing-before": { type: "string" },
  "postgres-parts": { type: "string" },
  "postgres-rounds": { type: "string" },
  "postgres-seconds": { type: "string" },
  "postgres-before": { type: "string" },
  soak: { type: "boolean", default: false },
  "soak-minutes": { type: "string" },
} as const;

let values;
try {
  values = parseArgs({ args: Deno.args, options: OPTIONS }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  Deno.exit(2);
}
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
if (values["write-baseline"] && !values.check) {
  console.error("--write-baseline goes with --check");
  Deno.exit(2);
}
if (values.against !== undefined && !values.check) {
  console.error("--against goes with --check");
  Deno.exit(2);
}
const resultsDir = values["no-results"] ? undefined : values.results ?? RESULTS_DIR;
const command = ["deno task bench", ...Deno.args].join(" ");
if (values.check) {
  Deno.exit(
    await runCheck({
      writeBaseline: values["write-baseline"],
      against: values.against,
      resultsDir,
      command,
    }),
  );
}
if (values.soak) {
  await runSoak({ minutes: Number(values["soak-minutes"] ?? 15) });
  Deno.exit(0);
}

const number = (value: string | undefined) => value === undefined ? undefined : Number(value);
const profiled = values["http-cpu-prof-workloads"]?.split(",");
const httpWorkloads = values["http-workloads"]?.split(",");
for (const name of [...profiled ?? [], ...httpWorkloads ?? []]) {
  if (!(name in WORKLOAD_TITLES)) {
    throw new Error(`an HTTP workload "${name}" must be one of get,list,post,put,patch`);
  }
}

type FeedPart = typeof FEED_PARTS[number];
const feedParts = values["feed-parts"]?.split(",");
for (const name of feedParts ?? []) {
  if (!FEED_PARTS.includes(name as FeedPart)) {
    throw new Error(`a feed part "${name}" must be one of ${FEED_PARTS}`);
  }
}
const searchParts = values["search-parts"]?.split(",");
for (const name of searchParts ?? []) {
  if (!SEARCH_PARTS.includes(name as SearchPart)) {
    throw new Error(`a search part "${name}" must be one of ${SEARCH_PARTS}`);
  }
}
const postgresParts = values["postgres-parts"]?.split(",");
for (const name of postgresParts ?? []) {
  if (!POSTGRES_PARTS.includes(name as PostgresPart)) {
    throw new Error(`a postgres part "${name}" must be one of ${POSTGRES_PARTS}`);
  }
}

/**
 * The benchmarks in the order they run; `byDefault` ones run when --only is not given. `ratios`
 * picks the guarded ratios out of what `run` resolved with, for the result file.
 */
const BENCHES: {
  name: string;
  title: string;
  byDefault: boolean;
  run: () => Promise<unknown>;
  ratios?: (result: never) => GuardedRatio[];
  databaseUrl?: string;
}[] = [
  {
    name: "http",
    title: "HTTP: the service against the contract floor, a bare server and json-server",
    byDefault: true,
    ratios: (r: Awaited<ReturnType<typeof runHttpBench>>) => httpRatios(r.results),
    run: () =>
      runHttpBench({
        quick: values.quick,
        rounds: number(values["http-rounds"]),
        seconds: number(values["http-seconds"]),
        cpuProfDir: values["http-cpu-prof"],
        cpuProfWorkloads: profiled as Workload[] | undefined,
        workloads: httpWorkloads as Workload[] | undefined,
        beforeRoot: values["http-before"],
      }),
  },
  {
    name: "scale",
    title: "Scaling: GET one, list, POST, startup and RSS by number of customers",
    byDefault: values.scale,
    run: () =>
      runScaleBench({
        sizes: values["scale-sizes"]?.split(",").map(Number),
        rounds: values.quick ? 1 : number(values["http-rounds"]),
        seconds: values.quick ? 1 : number(values["http-seconds"]),
      }),
  },
  {
    name: "auth",
    title: "Token cache: authenticated GET one with and without it",
    byDefault: true,
    run: () => runAuthCacheBench({ quick: values.quick }),
  },
  {
    name: "startup",
    title: "Startup and memory: from the log and from a snapshot, against JSON.parse",
    byDefault: true,
    ratios: startupRatios,
    run: () =>
      runStartupBench({
        quick: values.quick,
        events: number(values.events),
        runs: number(values.runs),
        cpuProfDir: values["cpu-prof"],
      }),
  },
  {
    name: "webhooks",
    title: "Webhooks: write throughput with delivery on and off, commit-to-delivery latency",
    byDefault: true,
    run: () =>
      runWebhookBench({
        quick: values.quick,
        rounds: number(values["webhooks-rounds"]),
        latencyRuns: number(values["webhooks-latency-runs"]),
        cpuProfDir: values["webhooks-cpu-prof"],
      }),
  },
  {
    name: "feed",
    title: "Feed and SSE: stream latency, writes with idle streams, paging, memory with history",
    byDefault: true,
    run: () =>
      runFeedBench({
        quick: values.quick,
        parts: feedParts as FeedPart[] | undefined,
        rounds: number(values["feed-rounds"]),
        beforeRoot: values["feed-before"],
        streams: values["feed-streams"]?.split(",").map(Number),
      }),
  },
  {
    name: "search",
    title: "Search: selective searches, GET one beside scans, startup, memory and writes",
    byDefault: true,
    ratios: (r: Awaited<ReturnType<typeof runSearchBench>>) => r.ratios,
    run: () =>
      runSearchBench({
        quick: values.quick,
        parts: searchParts as SearchPart[] | undefined,
        sizes: values["search-sizes"]?.split(",").map(Number),
        rounds: number(values["search-rounds"]),
        seconds: number(values["search-seconds"]),
        before: values["search-before"],
      }),
  },
  {
    name: "tracing",
    title: "Tracing: GET one and POST with OTEL_DENO off and on, against the tree before tracing",
    byDefault: true,
    ratios: (r: GuardedRatio[]) => r,
    run: () =>
      runTracingBench({
        quick: values.quick,
        rounds: number(values["tracing-rounds"]),
        seconds: number(values["tracing-seconds"]),
        before: values["tracing-before"],
      }),
  },
  {
    name: "postgres",
    title: "PostgreSQL: creates against pgbench and an HTTP floor, replica lag",
    byDefault: true,
    databaseUrl: DATABASE_URL,
    run: () =>
      runPostgresBench({
        quick: values.quick,
        parts: postgresParts as PostgresPart[] | undefined,
        rounds: number(values["postgres-rounds"]),
        seconds: number(values["postgres-seconds"]),
        beforeRoot: values["postgres-before"],
      }),
  },
  {
    // Asked for by name only: needs PostgreSQL (BENCH_DATABASE_URL).
    name: "pgstartup",
    title: "PostgreSQL startup: from a snapshot against a replay of the whole log",
    byDefault: false,
    databaseUrl: DATABASE_URL,
    run: () =>
      runPostgresStartupBench({
        events: number(values.events) ?? (values.quick ? 10_000 : 100_000),
        runs: number(values.runs),
      }),
  },
];

const names = BENCHES.map((bench) => bench.name);
const only = values.only?.split(",") ??
  BENCHES.filter((bench) => bench.byDefault).map((bench) => bench.name);
for (const name of only) {
  if (!names.includes(name)) throw new Error(`--only "${name}" must be one of ${names}`);
}
for (const bench of BENCHES.filter((b) => only.includes(b.name))) {
  const output = captureOutput();
  let result: unknown;
  try {
    result = await bench.run();
  } finally {
    output.stop();
  }
  if (resultsDir !== undefined) {
    const path = await writeResult(resultsDir, {
      name: bench.name,
      title: bench.title,
      command,
      output: output.lines,
      ratios: bench.ratios?.(result as never),
      databaseUrl: bench.databaseUrl,
    });
    console.log(`bench: wrote ${path}`);
  }
}
