import { monotonicFactory } from "ulid";
import { createHandler } from "./app.ts";
import { verificationKey } from "./auth_setup.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createAuthenticator, type Principal } from "./http/auth.ts";
import { UnusableKeySetError } from "./http/key_sources.ts";
import { TokenCache } from "./http/token_cache.ts";
import { createLogger } from "./log.ts";
import { CustomerProjection } from "./projection.ts";
import { CustomerService } from "./service/customer_service.ts";
import { JsonlEventStore } from "./store/jsonl_store.ts";
import { StoreLockedError } from "./store/store_errors.ts";
import { CorruptLogError } from "./store/jsonl_store.ts";

const encoder = new TextEncoder();
const log = createLogger("info", (line) => Deno.stdout.writeSync(encoder.encode(`${line}\n`)));

/** The composition root: config, store, replay, then serve; the only module with side effects. */
async function main(): Promise<void> {
  const config = loadConfig((name) => Deno.env.get(name));
  const store = await JsonlEventStore.open(config.dataDir, {
    warn: (msg, fields) => log.warn(msg, fields),
  });
  const projection = new CustomerProjection();
  const service = new CustomerService({
    store,
    projection,
    clock: Date.now,
    newId: monotonicFactory(),
  });
  const started = performance.now();
  const events = await service.replay();
  log.info("replay done", {
    events,
    customers: projection.size,
    ms: Math.round(performance.now() - started),
  });

  const { key, algorithms } = await verificationKey(config, log);
  const handler = createHandler({
    service,
    authenticate: createAuthenticator({
      key,
      algorithms,
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      cache: new TokenCache<Principal>(),
    }),
    maxBodyBytes: config.maxBodyBytes,
    onError: (error, requestId) =>
      log.error("unexpected error", { request_id: requestId, error: String(error) }),
  });

  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    onListen: ({ hostname, port }) => {
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      log.info("listening", { url: `http://${host}:${port}` });
    },
  }, handler);

  const stop = async (signal: string) => {
    log.info("shutting down", { signal });
    await server.shutdown();
    await store.close();
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}

try {
  await main();
} catch (error) {
  const known = error instanceof ConfigError || error instanceof StoreLockedError ||
    error instanceof CorruptLogError || error instanceof UnusableKeySetError;
  console.error(`customer-api cannot start: ${known ? (error as Error).message : error}`);
  Deno.exit(1);
}
