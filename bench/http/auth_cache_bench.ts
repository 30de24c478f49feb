/**
 * Authenticated GET-one throughput of the real handler with and without the verified-token
 * cache, measured in one process in alternating rounds so both see the same machine state.
 */
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWTVerifyGetKey, SignJWT } from "jose";
import { monotonicUlid } from "../../src/lib/monotonic_ulid.ts";
import { createHandler } from "../../src/app.ts";
import { createAuthenticator } from "../../src/auth/authenticator.ts";
import type { Principal } from "../../src/http/api_module.ts";
import { customerModule } from "../../src/customers/customer_routes.ts";
import { KEY_SET_ALGORITHMS, SECRET_ALGORITHMS, usableKeys } from "../../src/auth/key_sources.ts";
import { TokenCache } from "../../src/auth/token_cache.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { CustomerService } from "../../src/customers/customer_service.ts";
import { JsonlEventStore } from "../../src/store/jsonl/jsonl_store.ts";

/** How long and how often to measure. */
export interface AuthBenchOptions {
  /** A few-second run for CI instead of the full one. */
  quick: boolean;
}

/** One key source's figures: medians of requests per second. */
export interface AuthBenchResult {
  name: string;
  uncached: number;
  cached: number;
}

const CUSTOMERS = 300;
const CLIENTS = 16;

type Handler = (request: Request) => Response | Promise<Response>;

interface Scenario {
  name: string;
  key: Uint8Array | JWTVerifyGetKey;
  algorithms: string[];
  tokens: string[];
}

/** Runs the benchmark, prints a table and returns the figures. */
export async function runAuthCacheBench(options: AuthBenchOptions): Promise<AuthBenchResult[]> {
  const rounds = options.quick ? 5 : 9;
  const roundMs = options.quick ? 150 : 500;
  const dir = await Deno.makeTempDir({ prefix: "customer-api-bench-" });
  const store = await JsonlEventStore.open(dir);
  try {
    const service = new CustomerService({
      store,
      projection: new CustomerProjection(),
      clock: Date.now,
      newId: monotonicUlid(),
    });
    await service.snapshots.replay();
    const ids = await seed(service);
    console.log(
      `auth cache: GET /api/customers/:id in-process, ${CUSTOMERS} customers, ${CLIENTS} tokens,` +
        ` ${rounds} alternating rounds of ${roundMs} ms, medians`,
    );
    console.log(
      `${"key source".padEnd(16)}${"uncached req/s".padStart(16)}` +
        `${"cached req/s".padStart(16)}${"cached/uncached".padStart(18)}`,
    );
    const results: AuthBenchResult[] = [];
    for (const scenario of await scenarios()) {
      const handler = (cache?: TokenCache<Principal>) =>
        createHandler({
          modules: [customerModule({ service, maxBodyBytes: 65536 })],
          authenticate: createAuthenticator({
            key: scenario.key,
            algorithms: scenario.algorithms,
            cache,
          }),
        });
      const [uncached, cached] = await alternate(
        [handler(), handler(new TokenCache<Principal>())],
        scenario.tokens,
        ids,
        rounds,
        roundMs,
      );
      results.push({ name: scenario.name, uncached, cached });
      console.log(
        `${scenario.name.padEnd(16)}${format(uncached).padStart(16)}${
          format(cached).padStart(16)
        }` +
          `${`${(cached / uncached).toFixed(2)}×`.padStart(18)}`,
      );
    }
    return results;
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function seed(service: CustomerService): Promise<string[]> {
  const context = { actor: "bench", requestId: "bench-seed" };
  // Concurrent creates share fsyncs (group commit), so seeding takes a moment, not seconds.
  const created = await Promise.all(
    Array.from(
      { length: CUSTOMERS },
      (_, i) =>
        service.create({ name: `Customer ${i}`, email: `customer-${i}@example.com` }, context),
    ),
  );
  return created.map((result) => result.customer.id);
}

/** The HS256 shared secret, and an RS256 key set as most identity providers publish. */
async function scenarios(): Promise<Scenario[]> {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwks = { keys: [{ ...await exportJWK(publicKey), kid: "bench", use: "sig" }] };
  const mint = (alg: string, key: Uint8Array | CryptoKey, i: number) =>
    new SignJWT({ scope: "customers:read customers:write" })
      .setProtectedHeader({ alg, kid: alg === "RS256" ? "bench" : undefined })
      .setSubject(`client-${i}`)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(key);
  const clients = Array.from({ length: CLIENTS }, (_, i) => i);
  return [
    {
      name: "HS256 secret",
      key: secret,
      algorithms: SECRET_ALGORITHMS,
      tokens: await Promise.all(clients.map((i) => mint("HS256", secret, i))),
    },
    {
      name: "RS256 key set",
      key: createLocalJWKSet(usableKeys(jwks, "bench")),
      algorithms: KEY_SET_ALGORITHMS,
      tokens: await Promise.all(clients.map((i) => mint("RS256", privateKey, i))),
    },
  ];
}

/** Measures each handler in turn, ABBA-ordered, after one warm-up round each; medians. */
async function alternate(
  handlers: Handler[],
  tokens: string[],
  ids: string[],
  rounds: number,
  roundMs: number,
): Promise<number[]> {
  const rates: number[][] = handlers.map(() => []);
  for (const handler of handlers) await measure(handler, tokens, ids, roundMs);
  for (let round = 0; round < rounds; round++) {
    const order = handlers.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) rates[i].push(await measure(handlers[i], tokens, ids, roundMs));
  }
  return rates.map(median);
}

/** Sends GET-one requests back to back for `roundMs`; returns requests per second. */
async function measure(
  handler: Handler,
  tokens: string[],
  ids: string[],
  roundMs: number,
): Promise<number> {
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < roundMs) {
    const request = new Request(`http://bench.local/api/customers/${ids[count % ids.length]}`, {
      headers: { authorization: `Bearer ${tokens[count % tokens.length]}` },
    });
    const response = await handler(request);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
    count++;
    elapsed = performance.now() - started;
  }
  return count / (elapsed / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function format(rate: number): string {
  return Math.round(rate).toLocaleString("en-US");
}
