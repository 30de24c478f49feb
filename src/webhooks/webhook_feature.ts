/**
 * The webhooks feature: the endpoints API, the dispatcher, and who delivers which endpoint (all of
 * them on a store of its own; on a shared one, the replica holding the endpoint's lease).
 */
import type { Config } from "../config.ts";
import type { FeedModule } from "../feed/feed_routes.ts";
import type { ApiModule } from "../http/api_module.ts";
import { monotonicUlid } from "../lib/monotonic_ulid.ts";
import { ApiPressure } from "../ops/api_pressure.ts";
import type { BackgroundHealth } from "../ops/background_health.ts";
import type { Logger } from "../ops/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { Backend } from "../store/backend.ts";
import { Deliverer } from "./delivery.ts";
import { DestinationPolicy } from "./destination.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import { webhookModule } from "./webhook_routes.ts";
import type { StartLinkedSpan } from "../lib/trace_span.ts";
import { WebhookService } from "./webhook_service.ts";

/** What the feature is built from. */
export interface WebhookFeatureDeps {
  config: Config;
  backend: Backend;
  feed: Pick<FeedModule, "recent" | "oldestSeq">;
  metrics: Metrics;
  log: Logger;
  health: BackgroundHealth;
  /** Traces each delivery attempt, linked to its event's commit (tracing on). */
  span?: StartLinkedSpan;
}

/** The webhooks module, and how to start and stop its delivery. */
export interface WebhookFeature {
  module: ApiModule;
  start(): void;
  stop(): Promise<void>;
}

/** Builds the feature over the backend's webhook store and event log. */
export function webhookFeature(deps: WebhookFeatureDeps): WebhookFeature {
  const { config, backend, metrics, log, health } = deps;
  const store = backend.webhooks;
  const ownership = backend.ownership((id) => dispatcher.sync(id));
  const policy = new DestinationPolicy(config.webhookAllowPrivate);
  const service = new WebhookService({
    store,
    policy,
    lastSeq: () => backend.events.lastSeq,
    clock: Date.now,
    newId: monotonicUlid(),
    maxWebhooks: config.maxWebhooks,
    onChange: (id) => {
      dispatcher.sync(id);
      ownership?.check();
    },
  });
  const pressure = new ApiPressure(() => metrics.requestTime);
  const dispatcher = new WebhookDispatcher({
    events: backend.events,
    // The feed's recent events forget an erased customer's events on every replica: shared here.
    tail: deps.feed.recent,
    oldestSeq: () => deps.feed.oldestSeq(),
    apiBusy: () => pressure.busy(),
    webhooks: store,
    deliverer: new Deliverer(policy, config.webhookTimeoutMs, Date.now, deps.span),
    retryScheduleMs: config.webhookRetryScheduleMs,
    disable: (id, reason) => service.disable(id, reason),
    log,
    observe: (outcome, seconds) => metrics.observeWebhookDelivery(outcome, seconds),
    failed: (task, error) => health.failed(task, error),
    owns: ownership === undefined ? undefined : (id) => ownership.owns(id),
  });
  metrics.watchWebhooks(() =>
    store.list().map((e) => ({ id: e.id, backlog: dispatcher.backlog(e.id), active: e.enabled }))
  );
  metrics.watchWebhookHolds(() => dispatcher.heldAttempts);
  return {
    module: webhookModule({
      service,
      dispatcher,
      maxBodyBytes: config.maxBodyBytes,
      bodyTimeoutMs: config.bodyTimeoutMs,
    }),
    start: () => {
      dispatcher.start();
      ownership?.start();
    },
    stop: async () => {
      await dispatcher.stop();
      // Given back once nothing is delivered any more: another replica goes on at its next tick.
      await ownership?.stop();
      await store.close();
    },
  };
}
