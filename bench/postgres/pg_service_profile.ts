/**
 * Where one replica's CPU goes under closed-loop creates on PostgreSQL: the service under
 * `--cpu-prof` on a schema of its own, `wrk` with 64 connections, the profile summarised.
 *
 * deno run -A bench/postgres/pg_service_profile.ts [DIR] [SECONDS] [post|put]
 */
import { SignJWT } from "jose";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import { spawnServer } from "../support/server_process.ts";
import { randomSecret } from "../support/service_token.ts";
import { cpuSeconds } from "../support/child_processes.ts";
import { runWrk } from "../support/wrk.ts";
import { printRequestProfile } from "../http/http_profile.ts";
import { DATABASE_URL } from "./postgres_bench.ts";

const [dir = await Deno.makeTempDir({ prefix: "pg-profile-" }), seconds = "5"] = Deno.args;
const SCRIPT = decodeURIComponent(new URL("../support/workload.lua", import.meta.url).pathname);
const schema = `bench_profile_${Date.now()}`;
const admin = createPool(DATABASE_URL, 1, () => {});
const dataDir = await Deno.makeTempDir({ prefix: "pg-profile-data-" });
await admin.query(`CREATE SCHEMA ${schema}`);
try {
  const secret = randomSecret();
  const token = await new SignJWT({ scope: "customers:read customers:write" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject("bench").setIssuedAt()
    .setExpirationTime("1h").sign(new TextEncoder().encode(secret));
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  await Deno.mkdir(dir, { recursive: true });
  const before = new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
  const server = spawnServer(dataDir, ["--cpu-prof", `--cpu-prof-dir=${dir}`], {
    DATABASE_URL: url.toString(),
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
  const written = [...Deno.readDirSync(dir)].filter((e) => !before.has(e.name));
  await printRequestProfile(`${dir}/${written[0].name}`);
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  await Deno.remove(dataDir, { recursive: true });
}
