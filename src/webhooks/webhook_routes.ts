import { WEBHOOKS_SCOPE } from "../auth/scopes.ts";
import type { ApiModule, Endpoint, Handler } from "../http/api_module.ts";
import type { WebhookDispatcher } from "./dispatcher.ts";
import { webhookHandlers } from "./webhook_handlers.ts";
import { WEBHOOK_API } from "./webhook_openapi.ts";
import type { WebhookService } from "./webhook_service.ts";

/** What the webhook module is built from. */
export interface WebhookModuleDeps {
  service: WebhookService;
  dispatcher: WebhookDispatcher;
  maxBodyBytes: number;
  bodyTimeoutMs?: number;
}

const manage = (handler: Handler): Endpoint => ({ scope: WEBHOOKS_SCOPE, handler });

/** The webhook module: route rows (all under `webhooks:manage`) and their description. */
export function webhookModule(deps: WebhookModuleDeps): ApiModule {
  const h = webhookHandlers(deps.service, deps.dispatcher, deps.maxBodyBytes, deps.bodyTimeoutMs);
  return {
    ...WEBHOOK_API,
    routes: [
      { pathname: "/api/webhooks", methods: { GET: manage(h.list), POST: manage(h.create) } },
      {
        pathname: "/api/webhooks/:id",
        methods: { GET: manage(h.read), PATCH: manage(h.patch), DELETE: manage(h.remove) },
      },
      { pathname: "/api/webhooks/:id/rotate-secret", methods: { POST: manage(h.rotate) } },
      { pathname: "/api/webhooks/:id/ping", methods: { POST: manage(h.ping) } },
      { pathname: "/api/webhooks/:id/deliveries", methods: { GET: manage(h.deliveries) } },
    ],
  };
}
