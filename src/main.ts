import { monotonicFactory } from "ulid";
import { createHandler } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { loadOrCreateDevSecret } from "./dev_secret.ts";
import { createAuthenticator, READ_SCOPE, WRITE_SCOPE } from "./http/auth.ts";
import { createLogger, type Logger } from "./log.ts";
import { CustomerProjection } from "./projection.ts";
import { CustomerService } from "./service/customer_service.ts";
import { JsonlEventStore } from "./store/jsonl_store.ts";
import { StoreLockedError } from "./store/store_errors.ts";
import { CorruptLogError } from "./store/jsonl_store.ts";
import { mintToken } from "./token_mint.ts";

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

  const secret = config.jwtSecret ?? (await devModeSecret(config, log));
  const handler = createHandler({
    service,
    authenticate: createAuthenticator({
      secret,
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
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

/** Development mode: a generated secret, a loud warning and a ready token on stderr. */
async function devModeSecret(config: Config, log: Logger): Promise<Uint8Array> {
  const { secret, created } = await loadOrCreateDevSecret(config.dataDir);
  const token = await mintToken(
    secret,
    {
      sub: "dev",
      scope: `${READ_SCOPE} ${WRITE_SCOPE}`,
      ttlSeconds: 24 * 3600,
    },
    config.jwtIssuer,
    config.jwtAudience,
  );
  log.warn("development mode: no JWT_SECRET, JWKS_FILE or JWKS_URL is set", {
    dev_secret: `${config.dataDir}/dev-secret`,
    created,
  });
  const url = `http://${config.host}:${config.port === 0 ? "<port>" : config.port}`;
  console.error(
    [
      "WARNING: development mode. Tokens are signed with a generated secret in DATA_DIR/dev-secret.",
      "Do not run like this in production: set JWT_SECRET, JWKS_FILE or JWKS_URL.",
      `A token with both scopes, valid for 24 h:\n${token}`,
      `Try: curl -H "Authorization: Bearer ${token}" ${url}/api/customers`,
    ].join("\n"),
  );
  return secret;
}

try {
  await main();
} catch (error) {
  const known = error instanceof ConfigError || error instanceof StoreLockedError ||
    error instanceof CorruptLogError;
  console.error(`customer-api cannot start: ${known ? (error as Error).message : error}`);
  Deno.exit(1);
}
