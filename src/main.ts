import { monotonicFactory } from "ulid";
import { createHandler } from "./app.ts";
import { verificationKey } from "./auth/verification_key.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createAuthenticator } from "./auth/authenticator.ts";
import type { Principal } from "./http/api_module.ts";
import { UnusableKeySetError } from "./auth/key_sources.ts";
import { TokenCache } from "./auth/token_cache.ts";
import { CorsPolicy } from "./http/cors.ts";
import { acceptRecoveryLog, serveRecovering } from "./http/connection_limits.ts";
import { Metrics } from "./ops/metrics.ts";
import { watchParent } from "./ops/parent_watch.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { bufferedSink, createLogger, type LogLevel, requestLine } from "./ops/log.ts";
import { CompactionPolicy } from "./store/jsonl/compaction_policy.ts";
import { CustomerProjection } from "./read_model/projection.ts";
import { CustomerService } from "./customers/customer_service.ts";
import { customerModule } from "./customers/customer_routes.ts";
import { JsonlEventStore } from "./store/jsonl/jsonl_store.ts";
import { StoreError } from "./store/store_errors.ts";

const sink = bufferedSink(writeStdout);
const level = (Deno.env.get("LOG_LEVEL") as LogLevel | undefined) ?? "info";
/** Lifecycle and error lines are written at once (with any request lines before them). */
const log = createLogger(level, (line) => {
  sink.line(line);
  sink.flush();
});
/** Request lines are batched: one write per 50 ms instead of a syscall per request. */
const logRequests = level === "debug" || level === "info";

function writeStdout(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

/** Exit code after a failed fsync: the process must not go on writing (EX_IOERR). */
const EXIT_IO_ERROR = 74;

/** The composition root: config, store, recovery, then serve; the only module with side effects. */
async function main(): Promise<void> {
  const config = loadConfig((name) => Deno.env.get(name));
  const projection = new CustomerProjection();
  const metrics = new Metrics(() => projection.size);
  const store = await JsonlEventStore.open(config.dataDir, {
    warn: (msg, fields) => log.warn(msg, fields),
    onFatal: (error) => {
      log.error("fsync failed; stopping so that no write is acknowledged without being durable", {
        error: String(error),
      });
      // Give the batch's 503 answers a moment to leave, then stop.
      setTimeout(() => Deno.exit(EXIT_IO_ERROR), 200);
    },
    segmentMaxBytes: config.segmentMaxBytes,
    sync: async (file) => {
      const started = performance.now();
      await file.syncData();
      metrics.observeFsync((performance.now() - started) / 1000);
    },
  });
  const service = new CustomerService({
    store,
    projection,
    clock: Date.now,
    newId: monotonicFactory(),
    idempotencyMaxKeys: config.idempotencyMaxKeys,
  });
  const persistence = new CompactionPolicy(store, service, log, {
    snapshotEvery: config.snapshotEvery,
    eraseWithinMs: config.eraseWithinSeconds * 1000,
  });
  service.addCommitListener(() => metrics.eventsAppended(1));
  service.addCommitListener((event) => persistence.noteCommit(event));
  const started = performance.now();
  const recovery = await persistence.recover();
  log.info("replay done", {
    snapshot_seq: recovery.snapshotSeq,
    snapshot_records: recovery.snapshotRecords,
    events: recovery.eventsReplayed,
    customers: projection.size,
    ms: Math.round(performance.now() - started),
  });

  const { key, algorithms, announce } = await verificationKey(config, log);
  const handler = createHandler({
    modules: [
      customerModule({
        service,
        maxBodyBytes: config.maxBodyBytes,
        bodyTimeoutMs: config.bodyTimeoutMs,
      }),
    ],
    authenticate: createAuthenticator({
      key,
      algorithms,
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      cache: new TokenCache<Principal>(),
    }),
    publicUrl: config.publicUrl,
    onError: (error, requestId) =>
      log.error("unexpected error", { request_id: requestId, error: String(error) }),
    onRequest: logRequests ? (...fields) => sink.line(requestLine(...fields)) : undefined,
    metrics,
    rateLimiter: config.rateLimit === undefined ? undefined : new RateLimiter(config.rateLimit),
    cors: config.corsOrigins.length === 0 ? undefined : new CorsPolicy(config.corsOrigins),
  });

  // Signal handlers go in before the port opens: a SIGTERM right after "listening" must not kill.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    await server.shutdown();
    await persistence.settle();
    await persistence.compactIfChanged().catch((error) =>
      log.error("Snapshot at shutdown failed; the log has everything", { error: String(error) })
    );
    await store.close();
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  watchParent(() => stop("launcher gone"));
  const server = serveRecovering(acceptRecoveryLog(log, metrics), {
    port: config.port,
    hostname: config.host,
    onListen: ({ hostname, port }) => {
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      log.always("listening", { url: `http://${host}:${port}`, pid: Deno.pid });
      announce?.(`http://${host}:${port}`);
    },
  }, handler);
  if (recovery.eventsReplayed > 0) persistence.startCompaction();
}

try {
  await main();
} catch (error) {
  const known = error instanceof ConfigError || error instanceof StoreError ||
    error instanceof UnusableKeySetError;
  console.error(`customer-api cannot start: ${known ? (error as Error).message : error}`);
  Deno.exit(1);
}
