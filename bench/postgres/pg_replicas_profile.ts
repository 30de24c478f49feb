/**
 * Where a replica's CPU goes when three share the load on PostgreSQL: three services on one
 * schema, the first under `--cpu-prof`, one `wrk` per replica (64 connections in all).
 *
 * deno run -A bench/postgres/pg_replicas_profile.ts [DIR] [SECONDS] [REPLICAS] [LOADED] [CLIENTS] [PROFILED]
 *
 * LOADED replicas take the creates (all by default; with 1, the others only follow), over CLIENTS
 * connections in all (64 by default); replica PROFILED (from 0) runs under the profiler.
 */
import { spawnServer } from "../support/server_process.ts";
import { cpuSeconds } from "../support/child_processes.ts";
import { runWrk } from "../support/wrk.ts";
import { printRequestProfile } from "../http/http_profile.ts";
import { withProfileSchema } from "./profile_schema.ts";

const [
  dir = await Deno.makeTempDir({ prefix: "pg-replicas-" }),
  seconds = "8",
  count = "3",
  loaded = count,
  clients = "64",
  profiled = "0",
] = Deno.args;
const SCRIPT = decodeURIComponent(new URL("../support/workload.lua", import.meta.url).pathname);
const scope = "customers:read customers:write";
await withProfileSchema(
  "replicas",
  dir,
  scope,
  async ({ url, secret, token, dataDir, newProfile }) => {
    const servers = [];
    for (let i = 0; i < Number(count); i++) {
      servers.push(
        spawnServer(
          dataDir,
          i === Number(profiled) ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [],
          {
            DATABASE_URL: url,
            JWT_SECRET: secret,
          },
        ),
      );
    }
    const urls: string[] = [], pids: number[] = [];
    for (const server of servers) {
      urls.push((await server.waitFor("ready", 60_000)).fields.url as string);
      pids.push((await server.waitFor("listening")).fields.pid as number);
    }
    const drive = (tag: string, seconds: number) =>
      Promise.all(
        urls.slice(0, Number(loaded)).map((address, i, loadedUrls) =>
          runWrk({
            url: address,
            script: SCRIPT,
            args: ["post", "/api/customers", "-", token, `${tag}r${i}`],
            seconds,
            connections: Math.floor(Number(clients) / loadedUrls.length) +
              (i < Number(clients) % loadedUrls.length ? 1 : 0),
          })
        ),
      );
    await drive("warm", 2);
    const cpu = await Promise.all(pids.map(cpuSeconds));
    const results = await drive("run", Number(seconds));
    const used = (await Promise.all(pids.map(cpuSeconds))).map((c, i) => c - cpu[i]);
    const requests = results.reduce((sum, r) => sum + r.requests, 0);
    console.log(
      `${Math.round(results.reduce((s, r) => s + r.rps, 0))} creates/s over ${urls.length}, p99 ` +
        `${Math.max(...results.map((r) => r.p99Ms))} ms; CPU per create (all creates): ` +
        used.map((u) => `${Math.round((u / requests) * 1e6)} µs`).join(", ") +
        ` (replica ${profiled} profiled)`,
    );
    await Promise.all(servers.map((server) => server.stop("SIGTERM")));
    await printRequestProfile(newProfile());
  },
);
