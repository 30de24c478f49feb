/**
 * Where delivery time goes on PostgreSQL: one replica under `--cpu-prof` with 10 webhook endpoints
 * on a loopback receiver, creates paced at RATE per second; prints the commit-to-arrival
 * percentiles of their deliveries, the time deliveries waited for a busy API and the attempts'
 * mean time (what bounds one endpoint's rate, its events going one at a time), then the profile
 * (with PROFILE=1).
 *
 * deno run -A bench/postgres/pg_webhooks_profile.ts [DIR] [SECONDS] [RATE] [PROFILE=1]
 */
import { spawnServer } from "../support/server_process.ts";
import { printRequestProfile } from "../http/http_profile.ts";
import { paced, register, withReceiver } from "../webhooks/webhook_load.ts";
import { withProfileSchema } from "./profile_schema.ts";

const [
  dir = await Deno.makeTempDir({ prefix: "pg-webhooks-" }),
  seconds = "8",
  rate = "500",
  profile = "1",
] = Deno.args;
const scope = "customers:read customers:write webhooks:manage";
await withProfileSchema(
  "webhooks",
  dir,
  scope,
  async ({ url, secret, token, dataDir, newProfile }) => {
    const flags = profile === "1" ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
    const server = spawnServer(dataDir, flags, {
      DATABASE_URL: url,
      JWT_SECRET: secret,
      WEBHOOK_ALLOW_PRIVATE: "1",
    });
    const address = (await server.waitFor("ready", 60_000)).fields.url as string;
    const report = await withReceiver(async (port) => {
      await register(address, token, 10, port, "p-");
      await paced(address, token, Number(rate), Number(seconds));
      await new Promise((resolve) => setTimeout(resolve, 3000));
    });
    const latencies = report.latencies["/p"] ?? [];
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    console.log(
      `${latencies.length} deliveries: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, ` +
        `max ${sorted.at(-1)} ms`,
    );
    const metrics = await (await fetch(`${address}/metrics`)).text();
    console.log(
      metrics.split("\n").filter((line) => line.startsWith("webhook_held")).join("\n"),
    );
    // An endpoint gets its events one at a time, in order: the attempt's time bounds its rate.
    const total = (name: string) =>
      Number(
        new RegExp(`^webhook_delivery_duration_seconds_${name} (\\S+)$`, "m").exec(metrics)?.[1],
      );
    const mean = total("sum") / total("count");
    console.log(
      `attempts: ${total("count")}, ${(mean * 1000).toFixed(2)} ms each on average from send to ` +
        `answer: one endpoint takes at most about ${Math.round(1 / mean)} events/s`,
    );
    await server.stop("SIGTERM");
    if (profile === "1") await printRequestProfile(newProfile());
  },
);
