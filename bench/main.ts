/**
 * `deno task bench [--quick] [--only=http,scale,auth,startup,webhooks,feed,postgres,pgstartup] [--events=N] [--runs=N]
 * [--cpu-prof=DIR] [--http-rounds=N] [--http-seconds=S] [--http-cpu-prof=DIR]
 * [--http-cpu-prof-workloads=get,list,post,put] [--scale]
 * [--scale-sizes=10000,100000,1000000] [--webhooks-rounds=N] [--webhooks-cpu-prof=DIR]
 * [--soak [--soak-minutes=N]]`: runs the benchmarks, the HTTP one first; `--quick` is a
 * few-second run for CI; `--events`, `--runs` and `--cpu-prof` size and profile the startup
 * benchmark; `--http-*` the HTTP one; `--scale` adds the scaling figures (or `--only=scale`); `--webhooks-*` the webhook one; `--soak` runs only
 * the soak (bench/soak.ts), 15 minutes unless `--soak-minutes` says otherwise.
 */
import { parseArgs } from "node:util";
import { runAuthCacheBench } from "./auth_cache_bench.ts";
import { runHttpBench } from "./http_bench.ts";
import { runPostgresBench } from "./postgres_bench.ts";
import { type Workload, WORKLOAD_TITLES } from "./http_workloads.ts";
import { runScaleBench } from "./http_scale.ts";
import { runStartupBench } from "./startup_bench.ts";
import { runSoak } from "./soak.ts";
import { runWebhookBench } from "./webhook_bench.ts";
import { runFeedBench } from "./feed_bench.ts";
import { runPostgresStartupBench } from "./postgres_startup_bench.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    events: { type: "string" },
    runs: { type: "string" },
    "cpu-prof": { type: "string" },
    "http-rounds": { type: "string" },
    "http-seconds": { type: "string" },
    "http-cpu-prof": { type: "string" },
    "http-cpu-prof-workloads": { type: "string" },
    scale: { type: "boolean", default: false },
    "scale-sizes": { type: "string" },
    "webhooks-rounds": { type: "string" },
    "webhooks-cpu-prof": { type: "string" },
    soak: { type: "boolean", default: false },
    "soak-minutes": { type: "string" },
  },
});

if (values.soak) {
  await runSoak({ minutes: Number(values["soak-minutes"] ?? 15) });
  Deno.exit(0);
}

const BENCHES = ["http", "scale", "auth", "startup", "webhooks", "feed", "postgres", "pgstartup"];
/** Asked for by name only: scale (long) and pgstartup (needs PostgreSQL, BENCH_DATABASE_URL). */
const only = values.only?.split(",") ??
  BENCHES.filter((name) => name !== "pgstartup" && (name !== "scale" || values.scale));
for (const name of only) {
  if (!BENCHES.includes(name)) throw new Error(`--only "${name}" must be one of ${BENCHES}`);
}
const profiled = values["http-cpu-prof-workloads"]?.split(",");
for (const name of profiled ?? []) {
  if (!(name in WORKLOAD_TITLES)) {
    throw new Error(`--http-cpu-prof-workloads "${name}" must be one of get,list,post,put`);
  }
}
const number = (value: string | undefined) => value === undefined ? undefined : Number(value);

if (only.includes("http")) {
  await runHttpBench({
    quick: values.quick,
    rounds: number(values["http-rounds"]),
    seconds: number(values["http-seconds"]),
    cpuProfDir: values["http-cpu-prof"],
    cpuProfWorkloads: profiled as Workload[] | undefined,
  });
}
if (only.includes("scale")) {
  await runScaleBench({
    sizes: values["scale-sizes"]?.split(",").map(Number),
    rounds: values.quick ? 1 : number(values["http-rounds"]),
    seconds: values.quick ? 1 : number(values["http-seconds"]),
  });
}
if (only.includes("auth")) await runAuthCacheBench({ quick: values.quick });
if (only.includes("startup")) {
  await runStartupBench({
    quick: values.quick,
    events: number(values.events),
    runs: number(values.runs),
    cpuProfDir: values["cpu-prof"],
  });
}
if (only.includes("webhooks")) {
  await runWebhookBench({
    quick: values.quick,
    rounds: number(values["webhooks-rounds"]),
    cpuProfDir: values["webhooks-cpu-prof"],
  });
}
if (only.includes("feed")) await runFeedBench({ quick: values.quick });
if (only.includes("postgres")) await runPostgresBench({ quick: values.quick });
if (only.includes("pgstartup")) {
  await runPostgresStartupBench({
    events: number(values.events) ?? (values.quick ? 10_000 : 100_000),
    runs: number(values.runs),
  });
}
