/**
 * Where one replica's CPU goes under closed-loop creates on PostgreSQL: the service under
 * `--cpu-prof` on a schema of its own, `wrk` with 64 connections, the profile summarised.
 *
 * deno run -A bench/postgres/pg_service_profile.ts [DIR] [SECONDS] [post|put]
 */
import { spawnServer } from "../support/server_process.ts";
import { cpuSeconds } from "../support/child_processes.ts";
import { runWrk } from "../support/wrk.ts";
import { printRequestProfile } from "../http/http_profile.ts";
import { withProfileSchema } from "./profile_schema.ts";

const [dir = await Deno.makeTempDir({ prefix: "pg-profile-" }), seconds = "5"] = Deno.args;
const SCRIPT = decodeURIComponent(new URL("../support/workload.lua", import.meta.url).pathname);
const scope = "customers:read customers:write";
await withProfileSchema(
  "profile",
  dir,
  scope,
  async ({ url, secret, token, dataDir, newProfile }) => {
    const server = spawnServer(dataDir, ["--cpu-prof", `--cpu-prof-dir=${dir}`], {
      DATABASE_URL: url,
      JWT_SECRET: secret,
    });
    const address = (await server.waitFor("ready", 60_000)).fields.url as string;
    const pid = (await server.waitFor("listening")).fields.pid as number;
    const drive = (tag: string, seconds: number) =>
      runWrk({
        url: address,
        script: SCRIPT,
        args: ["post", "/api/customers", "-", token, tag],
        seconds,
        connections: 64,
      });
    await drive("warm", 2);
    const cpu = await cpuSeconds(pid);
    const result = await drive("run", Number(seconds));
    const used = (await cpuSeconds(pid)) - cpu;
    console.log(
      `${Math.round(result.rps)} creates/s, p99 ${result.p99Ms} ms, service CPU ` +
        `${Math.round((used / result.requests) * 1e6)} µs per create (profiled)`,
    );
    await server.stop("SIGTERM");
    await printRequestProfile(newProfile());
  },
);
