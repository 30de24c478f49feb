import { isUlid } from "../domain/customer.ts";
import type { HandlerContext } from "../http/api_module.ts";
import { DEFAULT_BODY_TIMEOUT_MS, readJsonBody } from "../http/body.ts";
import { etag, parseIfMatch } from "../http/conditional.ts";
import { JSON_TYPE } from "../http/media_types.ts";
import type { WebhookEndpoint } from "../store/webhook_store.ts";
import type { WebhookDispatcher } from "./dispatcher.ts";
import { WebhookNotFoundError } from "./webhook_errors.ts";
import { parseWebhookListQuery } from "./webhook_list_query.ts";
import type { WebhookService } from "./webhook_service.ts";
import { webhookView } from "./webhook_view.ts";
import { monotonicUlid } from "../lib/monotonic_ulid.ts";

const JSON_BODY = ["application/json"];
const PATCH_BODY = ["application/merge-patch+json", "application/json"];
const pingId = monotonicUlid();

/** The webhook endpoints of the API, bound to a service and a dispatcher. */
export function webhookHandlers(
  service: WebhookService,
  dispatcher: WebhookDispatcher,
  maxBodyBytes: number,
  bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
) {
  const idOf = (context: HandlerContext) => {
    const id = context.params.id ?? "";
    if (!isUlid(id)) throw new WebhookNotFoundError(id);
    return id;
  };
  return {
    async list(_request: Request, context: HandlerContext): Promise<Response> {
      await service.refresh();
      const query = parseWebhookListQuery(context.url.search);
      const after = service.list().filter((e) => query.after === undefined || e.id > query.after);
      const page = after.slice(0, query.limit);
      const next = after.length > query.limit ? page[page.length - 1].id : null;
      const headers: Record<string, string> = { "content-type": JSON_TYPE };
      if (next !== null) {
        const params = new URLSearchParams(context.url.searchParams);
        params.set("cursor", next);
        headers.link = `<${context.url.pathname}?${params}>; rel="next"`;
      }
      const body = JSON.stringify({ data: page.map(webhookView), next_cursor: next });
      return new Response(body, { headers });
    },

    async create(request: Request): Promise<Response> {
      const body = await readJsonBody(request, JSON_BODY, maxBodyBytes, bodyTimeoutMs);
      const endpoint = await service.create(body);
      const response = endpointResponse(endpoint, 201, true);
      response.headers.set("location", `/api/webhooks/${endpoint.id}`);
      return response;
    },

    async read(_request: Request, context: HandlerContext): Promise<Response> {
      const id = idOf(context);
      await service.refresh();
      return endpointResponse(service.get(id), 200);
    },

    async patch(request: Request, context: HandlerContext): Promise<Response> {
      const id = idOf(context);
      await service.refresh();
      service.get(id);
      const body = await readJsonBody(request, PATCH_BODY, maxBodyBytes, bodyTimeoutMs);
      const expected = parseIfMatch(request.headers.get("if-match"));
      return endpointResponse(await service.patch(id, body, expected), 200);
    },

    async remove(request: Request, context: HandlerContext): Promise<Response> {
      const expected = parseIfMatch(request.headers.get("if-match"));
      await service.remove(idOf(context), expected);
      return new Response(null, { status: 204 });
    },

    async rotate(request: Request, context: HandlerContext): Promise<Response> {
      const expected = parseIfMatch(request.headers.get("if-match"));
      return endpointResponse(await service.rotateSecret(idOf(context), expected), 200, true);
    },

    async ping(_request: Request, context: HandlerContext): Promise<Response> {
      const id = idOf(context);
      await service.refresh();
      const endpoint = service.get(id);
      const time = new Date().toISOString();
      const body = JSON.stringify({ type: "webhook.ping", time, webhook_id: endpoint.id });
      const result = await dispatcher.sendNow(endpoint.id, {
        id: `ping_${pingId()}`,
        type: "webhook.ping",
        seq: 0,
        body,
      });
      const answer = {
        delivered: result.ok,
        status_code: result.statusCode,
        error: result.error,
        duration_ms: result.durationMs,
      };
      return new Response(JSON.stringify(answer), { headers: { "content-type": JSON_TYPE } });
    },

    async deliveries(_request: Request, context: HandlerContext): Promise<Response> {
      const id = idOf(context);
      await service.refresh(id);
      service.get(id);
      const body = JSON.stringify({ data: service.attempts(id) });
      return new Response(body, { headers: { "content-type": JSON_TYPE } });
    },
  };
}

/** An endpoint's answer with its ETag; the secret only where it is shown (create, rotate). */
function endpointResponse(endpoint: WebhookEndpoint, status: number, withSecret = false): Response {
  const view = webhookView(endpoint);
  if (withSecret) view.secret = endpoint.secrets[0].secret;
  return new Response(JSON.stringify(view), {
    status,
    headers: { "content-type": JSON_TYPE, etag: etag(endpoint.version) },
  });
}
