/**
 * Webhook delivery under load: 10 endpoints on loopback receivers, writes paced at a fixed rate;
 * prints commit-to-delivery latency (p50/p99, from each event's `time` to its arrival) and the
 * write throughput of a closed loop with webhooks off and on.
 */
import { SignJWT } from "jose";
import { SECRET, spawnServer } from "./server_process.ts";

/** What the webhook benchmark may be told. */
export interface WebhookBenchOptions {
  quick?: boolean;
  endpoints?: number;
  rate?: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Runs the benchmark and prints its figures. */
export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<void> {
  const endpoints = options.endpoints ?? 10;
  const rate = options.rate ?? 500;
  const seconds = options.quick ? 2 : 5;
  const token = await new SignJWT({ scope: "customers:read customers:write webhooks:manage" })
    .setProtectedHeader({ alg: "HS256" }).setSubject("bench").setIssuedAt().setExpirationTime("1h")
    .sign(new TextEncoder().encode(SECRET));
  const offRate = await withServer(token, 0, 0, closedLoop(token, seconds));
  const latencies = await withReceiver((port) =>
    withServer(token, endpoints, port, async (url) => {
      await paced(url, token, rate, seconds);
      // Let the last deliveries arrive.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    })
  );
  let onRate = 0;
  await withReceiver((port) =>
    withServer(token, endpoints, port, async (url) => {
      onRate = await closedLoop(token, seconds)(url);
    })
  );
  const sorted = latencies.sort((a, b) => a - b);
  const delivered = sorted.length;
  console.log(`\nWebhooks: ${endpoints} endpoints, ${rate} writes/s for ${seconds} s`);
  console.log(`  deliveries: ${delivered} (expected ${endpoints * rate * seconds})`);
  console.log(
    `  commit-to-delivery latency: p50 ${percentile(sorted, 0.5)} ms, p99 ${
      percentile(sorted, 0.99)
    } ms, max ${sorted[sorted.length - 1]} ms`,
  );
  console.log(
    `  write throughput (closed loop, 16 clients): off ${offRate.toFixed(0)}/s, on ${
      onRate.toFixed(0)
    }/s (${(onRate / offRate).toFixed(2)}×)`,
  );
}

/** Runs `body` with a receiver process on a free port; resolves with its latencies (ms). */
async function withReceiver(body: (port: number) => Promise<void>): Promise<number[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", new URL("./webhook_receiver.ts", import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const chunks = child.stdout.pipeThrough(new TextDecoderStream()).values();
  let text = "";
  const nextLine = async () => {
    while (!text.includes("\n")) {
      const { value, done } = await chunks.next();
      if (done) throw new Error("The webhook receiver ended early");
      text += value;
    }
    const at = text.indexOf("\n");
    const line = text.slice(0, at);
    text = text.slice(at + 1);
    return line;
  };
  await body(Number(await nextLine()));
  await child.stdin.close();
  const latencies = JSON.parse(await nextLine());
  await child.status;
  return latencies;
}

async function withServer<T>(
  token: string,
  endpoints: number,
  port: number,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const dataDir = await Deno.makeTempDir({ prefix: "webhook-bench-" });
  const server = spawnServer(dataDir, [], { WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    const url = (await server.waitFor("ready")).fields.url as string;
    for (let i = 0; i < endpoints; i++) {
      const res = await fetch(`${url}/api/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook/${i}` }),
      });
      if (res.status !== 201) throw new Error(`Registering failed: ${await res.text()}`);
    }
    return await body(url);
  } finally {
    await server.stop("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
}

let n = 0;
function create(url: string, token: string): Promise<void> {
  n++;
  return fetch(`${url}/api/customers`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench ${n}`, email: `bench-${n}-${Date.now()}@example.com` }),
  }).then((res) => res.body?.cancel());
}

/** Writes at `rate` per second for `seconds`, each without waiting for the previous. */
async function paced(url: string, token: string, rate: number, seconds: number): Promise<void> {
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(create(url, token));
  }
  await Promise.all(pending);
}

/** Writes per second that 16 clients, each waiting for its answer, reach in `seconds`. */
function closedLoop(token: string, seconds: number) {
  return async (url: string): Promise<number> => {
    let done = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (performance.now() < end) await create(url, token).then(() => done++);
    }));
    return done / seconds;
  };
}
