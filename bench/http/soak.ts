/**
 * `deno task bench --soak [--soak-minutes=N]`: the service under a steady mixed load (creates
 * with Idempotency-Key, some replayed; reads; lists; patches; deletes that keep the number of
 * live customers fixed) for N minutes (default 15), with
 * IDEMPOTENCY_MAX_KEYS low so the key cap is reached early; prints RSS and the heap over time.
 * The heap floor of an interval (the lowest heapUsed sampled each second) stands for the live
 * heap: heapUsed right after a collection.
 */
import { ChildGroup } from "../support/child_processes.ts";
import { mintToken, randomSecret } from "../support/service_token.ts";
import { startService } from "./http_targets.ts";

/** Sizes of a soak. */
export interface SoakOptions {
  minutes: number;
  /** Requests per second, spread evenly. */
  rate?: number;
  /** The server's IDEMPOTENCY_MAX_KEYS. */
  maxKeys?: number;
}

/** Runs the soak and prints one line per interval, then a summary. */
export async function runSoak(options: SoakOptions): Promise<void> {
  const rate = options.rate ?? 200;
  const maxKeys = options.maxKeys ?? 5_000;
  // Ten lines at least for a short trial run; every 30 s for a real one.
  const reportEvery = Math.min(30, options.minutes * 6);
  const root = await Deno.makeTempDir({ prefix: "customer-api-soak-" });
  const group = new ChildGroup(root);
  try {
    const secret = randomSecret();
    const service = await startService(group, `${root}/data`, {
      secret,
      logLevel: "warn",
      env: { IDEMPOTENCY_MAX_KEYS: String(maxKeys) },
    });
    const client = new SoakClient(service.url, await mintToken(secret));
    console.log(
      `soak: ${options.minutes} min at ${rate} requests/s (40% GET one, 10% list, 35% POST with ` +
        `Idempotency-Key of which 1 in 7 replays a recent key, 15% PATCH; beyond ` +
        `${LIVE_CUSTOMERS} customers each create also deletes the oldest), ` +
        `IDEMPOTENCY_MAX_KEYS=${maxKeys}`,
    );
    console.log("minute  requests  errors  keys sent  RSS MB  heap floor MB  heap max MB");
    const end = performance.now() + options.minutes * 60_000;
    const floors: number[] = [];
    let interval = { floor: Infinity, max: 0, rss: 0 };
    let nextReport = performance.now() + reportEvery * 1000;
    let nextSample = performance.now();
    let sent = 0;
    const started = performance.now();
    const inFlight = new Set<Promise<void>>();
    while (performance.now() < end) {
      const due = Math.floor((performance.now() - started) / 1000 * rate);
      while (sent < due && inFlight.size < 256) {
        const request = client.one(sent++).finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      if (performance.now() >= nextSample) {
        nextSample += 1000;
        const memory = await client.memory();
        interval = {
          floor: Math.min(interval.floor, memory.heap),
          max: Math.max(interval.max, memory.heap),
          rss: memory.rss,
        };
      }
      if (performance.now() >= nextReport) {
        nextReport += reportEvery * 1000;
        floors.push(interval.floor);
        const minute = ((performance.now() - started) / 60_000).toFixed(1).padStart(6);
        console.log(
          `${minute}  ${String(client.done).padStart(8)}  ${String(client.errors).padStart(6)}  ` +
            `${String(client.keys).padStart(9)}  ${mb(interval.rss).padStart(6)}  ` +
            `${mb(interval.floor).padStart(13)}  ${mb(interval.max).padStart(11)}`,
        );
        interval = { floor: Infinity, max: 0, rss: 0 };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(inFlight);
    const late = floors.slice(Math.floor(floors.length / 2));
    console.log(
      `soak: ${client.done} requests, ${client.errors} errors; heap floor over the second half ` +
        `${mb(Math.min(...late))}–${mb(Math.max(...late))} MB` +
        (client.firstError ? `; first error: ${client.firstError}` : ""),
    );
  } finally {
    await group.stopAll();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

function mb(bytes: number): string {
  return Number.isFinite(bytes) ? (bytes / 1e6).toFixed(1) : "-";
}

/** Live customers kept: so the heap measures the key cap, not a growing customer count. */
const LIVE_CUSTOMERS = 2_000;

/** Sends the mixed requests and counts them. */
class SoakClient {
  done = 0;
  errors = 0;
  keys = 0;
  firstError: string | undefined;
  #ids: string[] = [];
  /** Recent keys with the body they were first sent with: a replay must repeat it. */
  #recentKeys: { key: string; body: string }[] = [];
  #headers: Record<string, string>;

  constructor(readonly url: string, token: string) {
    this.#headers = { authorization: `Bearer ${token}` };
  }

  /** Request number n of the mix. */
  async one(n: number): Promise<void> {
    const slot = n % 20;
    try {
      let response: Response;
      if (slot < 7 || this.#ids.length === 0) response = await this.#create(n, slot === 0);
      else if (slot < 15) response = await this.#get(`/api/customers/${this.#pick(n)}`);
      else if (slot < 17) response = await this.#get("/api/customers?limit=20");
      else response = await this.#patch(n);
      await response.body?.cancel();
      if (response.status >= 500 || (response.status >= 400 && response.status !== 404)) {
        this.#fail(`${response.status} ${response.url}`);
      }
    } catch (error) {
      this.#fail(String(error));
    }
    this.done++;
  }

  /** The server's RSS and heap in use, from /metrics. */
  async memory(): Promise<{ rss: number; heap: number }> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)![1]);
    return { rss: gauge("process_resident_memory_bytes"), heap: gauge("process_heap_used_bytes") };
  }

  #fail(reason: string): void {
    this.errors++;
    this.firstError ??= reason;
  }

  #pick(n: number): string {
    return this.#ids[(n * 7919) % this.#ids.length];
  }

  async #create(n: number, replay: boolean): Promise<Response> {
    const replayed = replay && this.#recentKeys.length > 0;
    const sent = replayed ? this.#recentKeys[n % this.#recentKeys.length] : this.#newKey(n);
    const response = await fetch(`${this.url}/api/customers`, {
      method: "POST",
      headers: {
        ...this.#headers,
        "content-type": "application/json",
        "idempotency-key": sent.key,
      },
      body: sent.body,
    });
    if (response.status === 201 && !replayed) {
      // Replayed only once answered: a key still in flight gets 409, as the contract says.
      this.#recentKeys.push(sent);
      if (this.#recentKeys.length > 50) this.#recentKeys.shift();
      const id = response.headers.get("location")?.split("/").pop();
      if (id !== undefined) this.#ids.push(id);
      // Live customers stay at LIVE_CUSTOMERS: each create beyond deletes the oldest.
      if (this.#ids.length > LIVE_CUSTOMERS) await this.#delete(this.#ids.shift()!);
    }
    return response;
  }

  #newKey(n: number): { key: string; body: string } {
    const key = crypto.randomUUID();
    const body = JSON.stringify({
      name: `Soak Customer ${n}`,
      email: `soak.${key}@example.com`,
      metadata: { source: "soak" },
    });
    this.keys++;
    return { key, body };
  }

  async #delete(id: string): Promise<void> {
    const response = await fetch(`${this.url}/api/customers/${id}`, {
      method: "DELETE",
      headers: this.#headers,
    });
    await response.body?.cancel();
    if (response.status !== 204) this.#fail(`${response.status} DELETE ${response.url}`);
  }

  #get(path: string): Promise<Response> {
    return fetch(`${this.url}${path}`, { headers: this.#headers });
  }

  #patch(n: number): Promise<Response> {
    return fetch(`${this.url}/api/customers/${this.#pick(n)}`, {
      method: "PATCH",
      headers: { ...this.#headers, "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { touched: String(n) } }),
    });
  }
}
