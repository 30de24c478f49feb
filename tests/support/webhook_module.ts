/** A webhook module over a memory webhook store, for tests that build the handler in-process. */
import { monotonicFactory } from "ulid";
import type { ApiModule } from "../../src/http/api_module.ts";
import type { EventStore } from "../../src/store/event_store.ts";
import { MemoryWebhookStore } from "../../src/store/memory/memory_webhook_store.ts";
import { Deliverer } from "../../src/webhooks/delivery.ts";
import { DestinationPolicy } from "../../src/webhooks/destination.ts";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher.ts";
import { webhookModule } from "../../src/webhooks/webhook_routes.ts";
import { WebhookService } from "../../src/webhooks/webhook_service.ts";

/** The webhook module wired as main.ts wires it, its dispatcher not started. */
export function testWebhookModule(events: EventStore): ApiModule {
  const store = new MemoryWebhookStore();
  const policy = new DestinationPolicy(true);
  const service: WebhookService = new WebhookService({
    store,
    policy,
    lastSeq: () => events.lastSeq,
    clock: Date.now,
    newId: monotonicFactory(),
    maxWebhooks: 10,
  });
  const dispatcher = new WebhookDispatcher({
    events,
    tail: events,
    webhooks: store,
    deliverer: new Deliverer(policy, 1000),
    retryScheduleMs: [100],
    disable: (id, reason) => service.disable(id, reason),
    log: { warn: () => {}, error: () => {} },
  });
  return webhookModule({ service, dispatcher, maxBodyBytes: 1024 });
}
