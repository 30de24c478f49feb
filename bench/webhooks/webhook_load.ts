/**
 * The parts of the webhook benchmark: a server with N endpoints, the receiver process, paced and
 * closed-loop writes, and watching the delivery backlog drain.
 */
import { spawnServer } from "../support/server_process.ts";

/** What the receiver process reports when it stops. */
export interface ReceiverReport {
  /** Commit-to-arrival latencies (ms) by group of paths (see webhook_receiver.ts). */
  latencies: Record<string, number[]>;
  paths: Record<string, { count: number; distinct: number; outOfOrder: number }>;
}

/** How the backlog went after writes: its largest sum over endpoints, and how long it took to 0. */
export interface Drained {
  maxBacklog: number;
  catchUpMs: number;
}

/** Runs `body` with a receiver process on a free port; resolves with its report. */
export async function withReceiver(body: (port: number) => Promise<void>): Promise<ReceiverReport> {
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
  try {
    await body(Number(await nextLine()));
  } finally {
    await child.stdin.close();
  }
  const report = JSON.parse(await nextLine());
  await child.status;
  return report;
}

/** Runs `body` against a fresh server with `endpoints` endpoints on the receiver at `port`. */
export async function withServer<T>(
  token: string,
  endpoints: number,
  port: number,
  denoFlags: string[],
  body: (url: string) => Promise<T>,
): Promise<T> {
  const dataDir = await Deno.makeTempDir({ prefix: "webhook-bench-" });
  const server = spawnServer(dataDir, denoFlags, { WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    const url = (await server.waitFor("ready")).fields.url as string;
    await register(url, token, endpoints, port, "");
    return await body(url);
  } finally {
    await server.stop("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
}

/**
 * Registers `endpoints` endpoints on the receiver at `port`, at paths `/hook/<prefix><i>` (each
 * starts at the log's head); resolves with their ids.
 */
export async function register(
  url: string,
  token: string,
  endpoints: number,
  port: number,
  prefix: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const res = await fetch(`${url}/api/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook/${prefix}${i}` }),
    });
    if (res.status !== 201) throw new Error(`Registering failed: ${await res.text()}`);
    ids.push((await res.json()).id);
  }
  return ids;
}

/** Deletes endpoints: their delivery stops. */
export async function unregister(url: string, token: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const res = await fetch(`${url}/api/webhooks/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    if (res.status !== 204) throw new Error(`Deleting endpoint ${id} answered ${res.status}`);
  }
}

let n = 0;
/** One create; resolves with whether it was committed (201). */
function create(url: string, token: string): Promise<boolean> {
  n++;
  return fetch(`${url}/api/customers`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench ${n}`, email: `bench-${n}-${Date.now()}@example.com` }),
  }).then(async (res) => {
    await res.body?.cancel();
    return res.status === 201;
  });
}

/** Writes at `rate` per second for `seconds`, each without waiting for the previous. */
export async function paced(
  url: string,
  token: string,
  rate: number,
  seconds: number,
): Promise<void> {
  const pending: Promise<boolean>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(create(url, token));
  }
  const committed = await Promise.all(pending);
  if (committed.includes(false)) throw new Error("A paced write was not committed");
}

/** Creates per second that `clients` clients, each waiting for its answer, reach in `seconds`. */
export async function closedLoop(
  url: string,
  token: string,
  clients: number,
  seconds: number,
): Promise<{ rate: number; writes: number }> {
  let writes = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end) {
      if (!await create(url, token)) throw new Error("A write was not committed");
      writes++;
    }
  }));
  return { rate: writes / ((performance.now() - started) / 1000), writes };
}

/** Polls /metrics until every endpoint's backlog is 0 (at most two minutes). */
export async function drain(url: string): Promise<Drained> {
  const started = performance.now();
  let maxBacklog = 0;
  while (performance.now() - started < 120_000) {
    const text = await (await fetch(`${url}/metrics`)).text();
    let backlog = 0;
    for (const match of text.matchAll(/^webhook_backlog_events\{[^}]*\} ([0-9]+)$/gm)) {
      backlog += Number(match[1]);
    }
    maxBacklog = Math.max(maxBacklog, backlog);
    if (backlog === 0) return { maxBacklog, catchUpMs: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("The webhook backlog did not drain within two minutes");
}

/** webhook_held_seconds_total: seconds delivery attempts waited at the gate (API busy), summed. */
export async function heldSeconds(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(text.match(/^webhook_held_seconds_total ([0-9.e+-]+)$/m)?.[1] ?? 0);
}
