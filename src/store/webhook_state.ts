import {
  ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type WebhookEndpoint,
  type WebhookStore,
} from "./webhook_store.ts";

/**
 * Webhook state held in memory: the reference behaviour of the port, which the memory backend is
 * and the JSONL backend replays its file into.
 */
export class WebhookState implements WebhookStore {
  #endpoints = new Map<string, WebhookEndpoint>();
  #attempts = new Map<string, DeliveryAttempt[]>();

  constructor(readonly attemptsKept = ATTEMPTS_KEPT) {}

  list(): WebhookEndpoint[] {
    return [...this.#endpoints.values()].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
      .map(copyOf);
  }

  get(id: string): WebhookEndpoint | undefined {
    const endpoint = this.#endpoints.get(id);
    return endpoint === undefined ? undefined : copyOf(endpoint);
  }

  put(endpoint: WebhookEndpoint): Promise<void> {
    const stored = this.#endpoints.get(endpoint.id);
    const last_seq = Math.max(stored?.last_seq ?? 0, endpoint.last_seq);
    this.#endpoints.set(endpoint.id, { ...copyOf(endpoint), last_seq });
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    this.#endpoints.delete(id);
    this.#attempts.delete(id);
    return Promise.resolve();
  }

  checkpoint(id: string, lastSeq: number): Promise<void> {
    const endpoint = this.#endpoints.get(id);
    if (endpoint !== undefined && lastSeq > endpoint.last_seq) endpoint.last_seq = lastSeq;
    return Promise.resolve();
  }

  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void> {
    if (!this.#endpoints.has(id)) return Promise.resolve();
    let log = this.#attempts.get(id);
    if (log === undefined) this.#attempts.set(id, log = []);
    log.push({ ...attempt });
    if (log.length > this.attemptsKept) log.splice(0, log.length - this.attemptsKept);
    return Promise.resolve();
  }

  /** How many records the state holds: one per endpoint and one per kept attempt. */
  get size(): number {
    let size = this.#endpoints.size;
    for (const log of this.#attempts.values()) size += log.length;
    return size;
  }

  attempts(id: string): DeliveryAttempt[] {
    return (this.#attempts.get(id) ?? []).map((attempt) => ({ ...attempt })).reverse();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A copy a caller may change: delivery reads endpoints per event, so no deep clone. */
function copyOf(endpoint: WebhookEndpoint): WebhookEndpoint {
  return {
    ...endpoint,
    types: [...endpoint.types],
    secrets: endpoint.secrets.map((secret) => ({ ...secret })),
  };
}
