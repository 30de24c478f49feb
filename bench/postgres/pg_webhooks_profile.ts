/**
 * Where delivery time goes on PostgreSQL: one replica under `--cpu-prof` with 10 webhook endpoints
 * on a loopback receiver, creates paced at RATE per second; prints the commit-to-arrival
 * percentiles per second of the run (a stall shows as one slow second), then the profile.
 *
 * deno run -A bench/postgres/pg_webhooks_profile.ts [DIR] [SECONDS] [RATE] [PROFILE=1]
 */
import { SignJWT } from "jose";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import { spawnServer } from "../support/server_process.ts";
import { randomSecret } from "../support/service_token.ts";
import { printRequestProfile } from "../http/http_profile.ts";
import { paced, register, withReceiver } from "../webhooks/webhook_load.ts";
import { DATABASE_URL } from "./postgres_bench.ts";

const [
  dir = await Deno.makeTempDir({ prefix: "pg-webhooks-" }),
  seconds = "8",
  rate = "500",
  profile = "1",
] = Deno.args;
const schema = `bench_webhooks_${Date.now()}`;
const admin = createPool(DATABASE_URL, 1, () => {});
const dataDir = await Deno.makeTempDir({ prefix: "pg-webhooks-data-" });
await admin.query(`CREATE SCHEMA ${schema}`);
try {
  const secret = randomSecret();
  const token = await new SignJWT({ scope: "customers:read customers:write webhooks:manage" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject("bench").setIssuedAt()
    .setExpirationTime("1h").sign(new TextEncoder().encode(secret));
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  await Deno.mkdir(dir, { recursive: true });
  const before = new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
  const flags = profile === "1" ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
  const server = spawnServer(dataDir, flags, {
    DATABASE_URL: url.toString(),
    JWT_SECRET: secret,
    WEBHOOK_ALLOW_PRIVATE: "1",
  });
  const address = (await server.waitFor("ready", 60_000)).fields.url as string;
  let start = 0;
  const report = await withReceiver(async (port) => {
    await register(address, token, 10, port, "p-");
    start = Date.now();
    await paced(address, token, Number(rate), Number(seconds));
    await new Promise((resolve) => setTimeout(resolve, 3000));
  });
  const latencies = report.latencies["/p"] ?? [];
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  console.log(
    `${latencies.length} deliveries: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, ` +
      `max ${sorted.at(-1)} ms (run started ${start})`,
  );
  const metrics = await (await fetch(`${address}/metrics`)).text();
  console.log(
    metrics.split("\n").filter((line) => /^webhook_held|^process_cpu/.test(line)).join("\n"),
  );
  await server.stop("SIGTERM");
  if (profile === "1") {
    const written = [...Deno.readDirSync(dir)].filter((e) => !before.has(e.name));
    await printRequestProfile(`${dir}/${written[0].name}`);
  }
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  await Deno.remove(dataDir, { recursive: true });
}
