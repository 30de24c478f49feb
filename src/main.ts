import { monotonicUlid } from "./lib/monotonic_ulid.ts";
import { createHandler } from "./app.ts";
import { verificationKey } from "./auth/verification_key.ts";
import { type Config, loadConfig } from "./config.ts";
import { createAuthenticator } from "./auth/authenticator.ts";
import type { Principal } from "./http/api_module.ts";
import { TokenCache } from "./auth/token_cache.ts";
import { exitWith, parseCommandLine } from "./cli/command_line.ts";
import { SERVER_USAGE } from "./cli/usage.ts";
import { CorsPolicy } from "./http/cors.ts";
import { acceptRecoveryLog } from "./http/connection_limits.ts";
import { startupGate } from "./http/startup_gate.ts";
import { Metrics } from "./ops/metrics.ts";
import { logOpenFileLimit } from "./ops/open_file_limit.ts";
import { MaintenanceHealth } from "./ops/maintenance_health.ts";
import { watchParent } from "./ops/parent_watch.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { createLogger, type Logger } from "./ops/log.ts";
import { LogBuffer } from "./ops/log_buffer.ts";
import { dataDirFailure, prepareDataDir, replayFailure } from "./ops/data_dir_setting.ts";
import { effectiveConfig } from "./ops/effective_config.ts";
import { listen, type Listener } from "./ops/listener.ts";
import { EXIT_IO, StartupError } from "./ops/startup_error.ts";
import { CompactionPolicy } from "./store/jsonl/compaction_policy.ts";
import { CustomerProjection } from "./read_model/projection.ts";
import { CustomerService } from "./customers/customer_service.ts";
import { customerModule } from "./customers/customer_routes.ts";
import { JsonlEventStore } from "./store/jsonl/jsonl_store.ts";
import type { EventStore } from "./store/event_store.ts";
import type { ApiModule } from "./http/api_module.ts";
import { type FeedModule, feedModule } from "./feed/feed_routes.ts";
import { withLogSeq } from "./feed/log_seq.ts";
import { acceptingStreamTokens, StreamTokens } from "./feed/stream_tokens.ts";
import { JsonlWebhookStore } from "./store/jsonl/jsonl_webhook_store.ts";
import { webhookModule } from "./webhooks/webhook_routes.ts";
import { WebhookService } from "./webhooks/webhook_service.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { ApiPressure } from "./ops/api_pressure.ts";
import { Deliverer } from "./webhooks/delivery.ts";
import { DestinationPolicy } from "./webhooks/destination.ts";
import { PostgresEventStore } from "./store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "./store/postgres/postgres_maintenance.ts";
import { PostgresWebhookStore } from "./store/postgres/postgres_webhook_store.ts";
import { WebhookLeases } from "./store/postgres/webhook_leases.ts";
import type { WebhookStore } from "./store/webhook_store.ts";
import { followLog } from "./customers/log_follower.ts";
import { MIN_LOG_SEQ_WAIT_MS, replicaGate } from "./http/replica_gate.ts";

/** The startup message for a database that cannot be reached or migrated. */
function databaseFailure(error: unknown): string {
  return `the database in DATABASE_URL cannot be used: ${String(error)}. ` +
    "Check that PostgreSQL runs and that the URL, user and database are right";
}

function writeStdout(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

/**
 * The composition root: config, data directory, keys, listener, replay, then serve. The listener
 * opens before the replay, answering 503 `starting` until the real handler takes over.
 */
async function main(): Promise<void> {
  const config = loadConfig((name) => Deno.env.get(name));
  const sink = new LogBuffer(writeStdout);
  /** Lifecycle and error lines are written at once (with any request lines before them). */
  const log = createLogger(config.logLevel, (line) => {
    sink.text(line);
    sink.flush();
  });
  log.info("configuration", effectiveConfig(config));
  logOpenFileLimit(log);

  // With DATABASE_URL the log is in PostgreSQL; DATA_DIR then only holds a development secret.
  const shared = config.databaseUrl === undefined ? undefined : await PostgresEventStore.open(
    config.databaseUrl,
    { warn: (msg, fields) => log.warn(msg, fields) },
  ).catch((error) => Promise.reject(new StartupError(databaseFailure(error), EXIT_IO)));
  if (shared === undefined || config.keySource.kind === "dev") await prepareDataDir(config.dataDir);
  const projection = new CustomerProjection();
  const metrics = new Metrics(() => projection.size);
  const store = shared ?? await JsonlEventStore.open(config.dataDir, {
    warn: (msg, fields) => log.warn(msg, fields),
    onFatal: (error) => {
      log.error("fsync failed; stopping so that no write is acknowledged without being durable", {
        error: String(error),
      });
      // Give the batch's 503 answers a moment to leave, then stop.
      setTimeout(() => Deno.exit(EXIT_IO), 200);
    },
    segmentMaxBytes: config.segmentMaxBytes,
    sync: async (file) => {
      const started = performance.now();
      await file.syncData();
      metrics.observeFsync((performance.now() - started) / 1000);
    },
  }).catch((error) => Promise.reject<JsonlEventStore>(dataDirFailure(error, config.dataDir)));
  const service = new CustomerService({
    store,
    projection,
    clock: Date.now,
    newId: monotonicUlid(),
    idempotencyMaxKeys: config.idempotencyMaxKeys,
  });
  service.addCommitListener(() => metrics.eventsAppended(1));

  const { key, algorithms, announce } = await verificationKey(config, log).catch((error) =>
    Promise.reject(error instanceof StartupError ? error : dataDirFailure(error, config.dataDir))
  );
  /** Request lines are batched: one write per 50 ms instead of a syscall per request. */
  const logRequests = config.logLevel === "debug" || config.logLevel === "info";
  // Stream tokens are keyed from the shared secret when there is one, so replicas agree.
  const streamTokens = new StreamTokens(
    key instanceof Uint8Array ? key : undefined,
    config.streamTokenTtlMs,
  );
  // The feed index is built from the log once the replay is done (feed_index.ts says why): the
  // listener opens before the replay, and the replay tells no commit listener.
  const replayed = Promise.withResolvers<void>();
  const feed = feedModule({
    store,
    // Every event applied, this replica's own and (on PostgreSQL) the other replicas'.
    onCommit: (listener) => {
      service.addCommitListener(listener);
      service.addFollowListener(listener);
    },
    isLive: (id) => service.isLive(id),
    tokens: streamTokens,
    retentionMs: config.eventRetentionMs,
    maxStreams: config.maxStreams,
    heartbeatMs: config.sseHeartbeatMs,
    replayed: replayed.promise,
  });
  // Webhook endpoints live beside the log: in DATA_DIR, or in PostgreSQL shared by the replicas.
  const webhookParts = await webhooksWiring(config, store, feed, metrics, log);
  const maintenance = new MaintenanceHealth();
  metrics.include(() => maintenance.render());
  if (shared !== undefined) metrics.include(() => shared.commitStats.render());
  const replicated = shared === undefined ? undefined : new PostgresMaintenance(shared, service, {
    snapshotEvery: config.snapshotEvery,
    retentionMs: config.eventRetentionMs,
    eraseWithinMs: config.eraseWithinSeconds * 1000,
    onOutcome: (error) => {
      if (error === undefined) return maintenance.succeeded();
      log.error("Compaction failed", { error: String(error) });
      maintenance.failed(error);
    },
  });
  const persistence = replicated ?? new CompactionPolicy(store as JsonlEventStore, service, log, {
    snapshotEvery: config.snapshotEvery,
    eraseWithinMs: config.eraseWithinSeconds * 1000,
    onOutcome: (error) => error === undefined ? maintenance.succeeded() : maintenance.failed(error),
    retentionMs: config.eventRetentionMs,
  });
  if (replicated !== undefined) {
    // A delete another replica committed is erased here too, should that replica stop before it.
    service.addFollowListener((event) => replicated.noteFollowed(event));
    // Cut off until retention dropped the events it missed, a replica goes on from the newest
    // snapshot. Customers deleted and erased meanwhile were never seen deleted here: the recent
    // events forget everything they held.
    service.onLogTruncated(async () => {
      const seq = await replicated.reload(() => feed.recent.clear());
      if (seq === undefined) return false;
      log.warn("The log no longer holds the events this replica missed; went on from a snapshot", {
        snapshot_seq: seq,
      });
      return true;
    });
  }
  service.addCommitListener((event) => persistence.noteCommit(event));
  const appliedSeq = () => service.appliedSeq;
  // Every answer under these paths carries Log-Seq, the gates' 503s included.
  const logSeq = { paths: ["/api/customers", "/api/events"], seq: appliedSeq };
  const app = createHandler({
    modules: [
      withLogSeq(
        customerModule({
          service,
          maxBodyBytes: config.maxBodyBytes,
          bodyTimeoutMs: config.bodyTimeoutMs,
        }),
        appliedSeq,
      ),
      withLogSeq(feed.module, appliedSeq),
      webhookParts.module,
    ],
    authenticate: acceptingStreamTokens(
      streamTokens,
      createAuthenticator({
        key,
        algorithms,
        issuer: config.jwtIssuer,
        audience: config.jwtAudience,
        cache: new TokenCache<Principal>(),
      }),
    ),
    publicUrl: config.publicUrl,
    onError: (error, requestId) =>
      log.error("unexpected error", { request_id: requestId, error: String(error) }),
    onRequest: logRequests
      ? (id, method, route, status, ms) => sink.request(id, method, route, status, ms)
      : undefined,
    metrics,
    rateLimiter: config.rateLimit === undefined ? undefined : new RateLimiter(config.rateLimit),
    cors: config.corsOrigins.length === 0 ? undefined : new CorsPolicy(config.corsOrigins),
    notReady: () => maintenance.problem(),
    logSeq,
  });

  // Signal handlers go in before the listener opens: a SIGTERM right after "listening" must not kill.
  let listener: Listener | undefined = undefined;
  let ready = false;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    // Open streams and long polls end first, or the listener would wait for them.
    feed.stop();
    await listener?.close();
    // During the replay nothing was written: the lock goes with the process.
    if (ready) {
      await webhookParts.stop();
      await persistence.settle();
      await persistence.compactIfChanged().catch((error) =>
        log.error("Snapshot at shutdown failed; the log has everything", { error: String(error) })
      );
      await store.close();
    }
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  watchParent(() => stop("launcher gone"));

  // Until the replay is done the gate answers; then one reference swap hands over to the app.
  let handler: (request: Request) => Response | Promise<Response> = startupGate(logSeq);
  listener = await listen(config, (request) => handler(request), acceptRecoveryLog(log, metrics));
  log.always("listening", { url: listener.url, address: listener.address, pid: Deno.pid });

  const started = performance.now();
  const recovery = await persistence.recover().catch((error) =>
    Promise.reject(replayFailure(error, config.dataDir))
  );
  const ms = Math.round(performance.now() - started);
  replayed.resolve();
  log.info("replay done", {
    snapshot_seq: recovery.snapshotSeq,
    snapshot_records: recovery.snapshotRecords,
    events: recovery.eventsReplayed,
    customers: projection.size,
    ms,
  });
  if (stopping) return;
  // Every replica applies the others' events; requests may wait for a seq (Min-Log-Seq).
  if (shared !== undefined) {
    followLog(
      shared,
      service,
      (error) => log.warn("following the log failed", { error: String(error) }),
    );
    handler = replicaGate(
      app,
      {
        get appliedSeq() {
          return service.appliedSeq;
        },
        get reachable() {
          return shared.reachable;
        },
      },
      MIN_LOG_SEQ_WAIT_MS,
      logSeq,
    );
  } else handler = app;
  ready = true;
  log.always("ready", { url: listener.url, customers: projection.size, replay_ms: ms });
  announce?.(listener.curl("/api/customers"));
  webhookParts.start();
  if (recovery.eventsReplayed > 0) persistence.startCompaction();
}

/**
 * The webhooks module, its dispatcher, and how to start and stop them. Without DATABASE_URL the
 * endpoints are in DATA_DIR and this process delivers them all; with it they are in PostgreSQL,
 * every replica serves them, and each endpoint is delivered by the replica holding its lease.
 */
async function webhooksWiring(
  config: Config,
  store: EventStore,
  feed: Pick<FeedModule, "recent" | "oldestSeq">,
  metrics: Metrics,
  log: Logger,
): Promise<{ module: ApiModule; start(): void; stop(): Promise<void> }> {
  const warn = (msg: string, fields: Record<string, unknown>) => log.warn(msg, fields);
  let webhookStore: WebhookStore;
  let leases: WebhookLeases | undefined;
  if (config.databaseUrl === undefined) {
    webhookStore = await JsonlWebhookStore.open(config.dataDir, { warn })
      .catch((error) => Promise.reject(dataDirFailure(error, config.dataDir)));
  } else {
    const shared = await PostgresWebhookStore.open(config.databaseUrl, { warn })
      .catch((error) => Promise.reject(new StartupError(databaseFailure(error), EXIT_IO)));
    webhookStore = shared;
    leases = new WebhookLeases({
      pool: shared.pool,
      holder: shared.holder,
      refresh: () => shared.refresh(),
      ids: () => shared.list().map((endpoint) => endpoint.id),
      onChange: (id) => dispatcher.sync(id),
      warn,
    });
  }
  const webhookPolicy = new DestinationPolicy(config.webhookAllowPrivate);
  const webhooks = new WebhookService({
    store: webhookStore,
    policy: webhookPolicy,
    lastSeq: () => store.lastSeq,
    clock: Date.now,
    newId: monotonicUlid(),
    maxWebhooks: config.maxWebhooks,
    onChange: (id) => {
      dispatcher.sync(id);
      // A new or enabled endpoint is taken at once, not at the next tick.
      leases?.check();
    },
  });
  const pressure = new ApiPressure(() => metrics.requestTime);
  const dispatcher = new WebhookDispatcher({
    events: store,
    // The feed's cache of recent events: it forgets a deleted customer's events once the store's
    // erasure horizon passes the delete, on every replica, so delivery shares it on both stores.
    tail: feed.recent,
    oldestSeq: () => feed.oldestSeq(),
    apiBusy: () => pressure.busy(),
    webhooks: webhookStore,
    deliverer: new Deliverer(webhookPolicy, config.webhookTimeoutMs),
    retryScheduleMs: config.webhookRetryScheduleMs,
    disable: (id, reason) => webhooks.disable(id, reason),
    log,
    observe: (outcome, seconds) => metrics.observeWebhookDelivery(outcome, seconds),
    owns: leases === undefined ? undefined : (id) => leases.owns(id),
  });
  metrics.watchWebhooks(() =>
    webhookStore.list().map((e) => ({
      id: e.id,
      backlog: dispatcher.backlog(e.id),
      active: e.enabled,
    }))
  );
  metrics.watchWebhookHolds(() => dispatcher.heldAttempts);
  const module = webhookModule({
    service: webhooks,
    dispatcher,
    maxBodyBytes: config.maxBodyBytes,
    bodyTimeoutMs: config.bodyTimeoutMs,
  });
  return {
    module,
    start: () => {
      dispatcher.start();
      leases?.start();
    },
    stop: async () => {
      await dispatcher.stop();
      // Given back once nothing is delivered any more: another replica goes on at its next tick.
      await leases?.stop();
      await webhookStore.close();
    },
  };
}

if (import.meta.main) {
  const command = parseCommandLine(Deno.args, SERVER_USAGE);
  if (command.kind === "exit") exitWith(command);
  try {
    await main();
  } catch (error) {
    // A known cause is one line naming the setting and what to do, with its own exit code.
    const known = error instanceof StartupError;
    console.error(`customer-api cannot start: ${known ? error.message : String(error)}`);
    Deno.exit(known ? error.exitCode : 1);
  }
}
