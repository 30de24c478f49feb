import { monotonicUlid } from "./lib/monotonic_ulid.ts";
import { createHandler } from "./app.ts";
import { verificationKey } from "./auth/verification_key.ts";
import { loadConfig } from "./config.ts";
import { exitWith, parseCommandLine } from "./cli/command_line.ts";
import { SERVER_USAGE } from "./cli/usage.ts";
import { CorsPolicy } from "./http/cors.ts";
import { acceptRecoveryLog } from "./http/connection_limits.ts";
import { startupGate } from "./http/startup_gate.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { Metrics } from "./ops/metrics.ts";
import { logOpenFileLimit } from "./ops/open_file_limit.ts";
import { MaintenanceHealth } from "./ops/maintenance_health.ts";
import { BackgroundHealth } from "./ops/background_health.ts";
import { onShutdown } from "./ops/shutdown.ts";
import { serviceLog } from "./ops/service_log.ts";
import { logRecovery, maintenanceHooks, openBackend, recoveryFailure } from "./ops/open_backend.ts";
import { consoleUrlOf, listen, type Listener } from "./ops/listener.ts";
import { openTracing } from "./ops/tracing.ts";
import { StartupError } from "./lib/startup_error.ts";
import { CustomerProjection } from "./read_model/projection.ts";
import { CustomerService } from "./customers/customer_service.ts";
import { customerModule } from "./customers/customer_routes.ts";
import { linkReplica } from "./customers/replica_link.ts";
import { withLogSeq } from "./feed/log_seq.ts";
import { feedFeature } from "./feed/feed_feature.ts";
import { consoleModule } from "./console/console_module.ts";
import { webhookFeature } from "./webhooks/webhook_feature.ts";

/**
 * The composition root: config, backend, keys, listener, replay, then serve. The listener opens
 * before the replay, answering 503 `starting` until the real handler takes over.
 */
async function main(): Promise<void> {
  const config = loadConfig((name) => Deno.env.get(name));
  // With OTEL_DENO off every hook is undefined: the request path does no tracing work at all.
  const { span, linked, requests, commits } = openTracing(config);
  const { log, onRequest, ready: sayReady } = serviceLog(config, requests?.ids);
  logOpenFileLimit(log);
  const projection = new CustomerProjection();
  const metrics = new Metrics(() => projection.size);
  const backend = await openBackend(config, log, metrics, commits);
  const { events: store, shared } = backend;
  const health = new BackgroundHealth(log, shared && (() => shared.reachable));
  metrics.include(() => health.render());
  health.guardUnhandled(log);
  const service = new CustomerService({
    store,
    projection,
    clock: Date.now,
    newId: monotonicUlid(),
    idempotencyMaxKeys: config.idempotencyMaxKeys,
    span,
  });
  service.addCommitListener(() => metrics.eventsAppended(1));
  const keys = await verificationKey(config, log);
  const { feed, authenticate, replayed } = feedFeature(config, store, service, keys, health, span);
  const webhooks = webhookFeature({ config, backend, feed, metrics, log, health, span: linked });
  const upkeep = new MaintenanceHealth();
  metrics.include(() => upkeep.render());
  const maintenance = backend.maintain(
    service.snapshots,
    maintenanceHooks(backend, log, health, upkeep),
  );
  const replica = shared && linkReplica({
    shared,
    store,
    service,
    maintenance,
    forgetRecent: () => feed.recent.clear(),
    log,
    health,
    span,
  });
  service.addCommitListener((event) => maintenance.noteCommit(event));
  const appliedSeq = () => service.appliedSeq;
  // Every answer under these paths carries Log-Seq, the gates' 503s included.
  const logSeq = { paths: ["/api/customers", "/api/events"], seq: appliedSeq };
  const { maxBodyBytes, bodyTimeoutMs } = config;
  const app = createHandler({
    modules: [
      withLogSeq(customerModule({ service, maxBodyBytes, bodyTimeoutMs }), appliedSeq),
      withLogSeq(feed.module, appliedSeq),
      webhooks.module,
      ...config.console ? [consoleModule()] : [],
    ],
    authenticate,
    publicUrl: config.publicUrl,
    onError: (error, requestId) =>
      log.error("unexpected error", { request_id: requestId, error: String(error) }),
    onRequest,
    metrics,
    rateLimiter: config.rateLimit === undefined ? undefined : new RateLimiter(config.rateLimit),
    cors: config.corsOrigins.length === 0 ? undefined : new CorsPolicy(config.corsOrigins),
    notReady: () => upkeep.problem(),
    logSeq,
    traceRequest: requests?.finished,
  });

  // Signal handlers go in before the listener opens: a SIGTERM right after "listening" must not kill.
  let listener: Listener | undefined = undefined;
  let ready = false;
  const stopping = onShutdown(log, async () => {
    // Open streams and long polls end first, or the listener would wait for them.
    feed.stop();
    await listener?.close();
    // During the replay nothing was written: the lock goes with the process.
    if (!ready) return;
    await webhooks.stop();
    await maintenance.settle();
    await maintenance.compactIfChanged().catch((error) =>
      log.error("Snapshot at shutdown failed; the log has everything", { error: String(error) })
    );
    await store.close();
  });

  // Until the replay is done the gate answers; then one reference swap hands over to the app.
  let handler: (request: Request) => Response | Promise<Response> = startupGate(logSeq);
  listener = await listen(config, (request) => handler(request), acceptRecoveryLog(log, metrics));
  log.always("listening", { url: listener.url, address: listener.address, pid: Deno.pid });
  const started = performance.now();
  const recovery = await maintenance.recover()
    .catch((error) => Promise.reject(recoveryFailure(config, error)));
  health.succeeded("replay");
  const replayMs = Math.round(performance.now() - started);
  replayed();
  logRecovery(log, recovery, projection.size, replayMs);
  if (stopping()) return;
  handler = replica?.serve(app, logSeq) ?? app;
  ready = true;
  const consoleUrl = consoleUrlOf(config, listener);
  const indexed = service.lists.index();
  sayReady({ url: listener.url, customers: projection.size, replayMs, consoleUrl, indexed });
  keys.announce?.(listener.curl("/api/customers"), consoleUrl);
  webhooks.start();
  if (recovery.eventsReplayed > 0) maintenance.startCompaction();
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
