import {
  ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type WebhookEndpoint,
  type WebhookStore,
} from "./webhook_store.ts";
import { ExpectedVersionConflictError } from "./store_errors.ts";

/** Webhook state in memory: the port's reference behaviour, which the JSONL store replays into. */
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
    const conflict = staleVersion(endpoint, this.#endpoints.get(endpoint.id)?.version);
    if (conflict !== undefined) return Promise.reject(conflict);
    this.set(endpoint);
    return Promise.resolve();
  }

  restore(endpoint: WebhookEndpoint): Promise<void> {
    this.set(endpoint);
    return Promise.resolve();
  }

  /** Stores an endpoint whatever the stored version (a replay, a copy read back from storage). */
  set(endpoint: WebhookEndpoint): void {
    const stored = this.#endpoints.get(endpoint.id);
    const last_seq = Math.max(stored?.last_seq ?? 0, endpoint.last_seq);
    this.#endpoints.set(endpoint.id, { ...copyOf(endpoint), last_seq });
  }

  /** Replaces an endpoint's deliveries log with `attempts` (oldest first), as read back. */
  setAttempts(id: string, attempts: DeliveryAttempt[]): void {
    if (!this.#endpoints.has(id)) return;
    this.#attempts.set(id, attempts.slice(-this.attemptsKept));
  }

  remove(id: string, version?: number): Promise<void> {
    const conflict = staleRemove(id, version, this.#endpoints.get(id)?.version);
    if (conflict !== undefined) return Promise.reject(conflict);
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

  refresh(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The conflict of a put over a stored `version` (undefined: none), or undefined when newer. */
export function staleVersion(
  endpoint: WebhookEndpoint,
  version: number | undefined,
): ExpectedVersionConflictError | undefined {
  if (version === undefined ? endpoint.version === 1 : endpoint.version > version) return undefined;
  return new ExpectedVersionConflictError(endpoint.id, endpoint.version - 1, version ?? 0);
}

/** The conflict of a remove of `id` expecting `expected` over a stored `version`, if any. */
export function staleRemove(
  id: string,
  expected: number | undefined,
  version: number | undefined,
): ExpectedVersionConflictError | undefined {
  if (expected === undefined || expected === version) return undefined;
  return new ExpectedVersionConflictError(id, expected, version ?? 0);
}

/** A copy a caller may change: delivery reads endpoints per event, so no deep clone. */
function copyOf(endpoint: WebhookEndpoint): WebhookEndpoint {
  return {
    ...endpoint,
    types: [...endpoint.types],
    secrets: endpoint.secrets.map((secret) => ({ ...secret })),
  };
}
