import type { WebhookEndpoint } from "../store/webhook_store.ts";

/** An endpoint as clients see it: everything but its secrets. */
export function webhookView(endpoint: WebhookEndpoint): Record<string, unknown> {
  return {
    id: endpoint.id,
    url: endpoint.url,
    types: endpoint.types,
    description: endpoint.description,
    enabled: endpoint.enabled,
    status: endpoint.enabled ? "active" : "disabled",
    disabled_reason: endpoint.disabled_reason,
    last_seq: endpoint.last_seq,
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
    version: endpoint.version,
  };
}

/** The signing secrets in force at `now`: the newest first, an old one until it expires. */
export function activeSecrets(endpoint: WebhookEndpoint, now: number): string[] {
  const [only] = endpoint.secrets;
  // The usual case, no rotation under way: nothing to filter.
  if (endpoint.secrets.length === 1 && only.expires_at === null) return [only.secret];
  return endpoint.secrets
    .filter((s) => s.expires_at === null || Date.parse(s.expires_at) > now)
    .map((s) => s.secret);
}
