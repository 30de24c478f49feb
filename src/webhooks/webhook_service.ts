import { ValidationError, VersionMismatchError } from "../domain/errors.ts";
import type { ExpectedVersions } from "../domain/commands.ts";
import { applyMergePatch } from "../domain/merge_patch.ts";
import { isPlainObject } from "../domain/validation.ts";
import type { DeliveryAttempt, WebhookEndpoint, WebhookStore } from "../store/webhook_store.ts";
import { ExpectedVersionConflictError } from "../store/store_errors.ts";
import { type DestinationPolicy, UnsafeDestinationError } from "./destination.ts";
import { newSecret } from "./signing.ts";
import { WebhookLimitError, WebhookNotFoundError } from "./webhook_errors.ts";
import { parseWebhookInput, type WebhookInput } from "./webhook_input.ts";
import { webhookView } from "./webhook_view.ts";

/** How long an old secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** What the webhook service is built from. */
export interface WebhookServiceDeps {
  store: WebhookStore;
  policy: DestinationPolicy;
  /** The seq of the newest durable event: a new endpoint starts after it. */
  lastSeq: () => number;
  clock: () => number;
  newId: () => string;
  maxWebhooks: number;
  /** Told after every change of an endpoint, so its delivery loop starts, stops or goes on. */
  onChange?: (id: string) => void;
}

/** Registers, changes and removes webhook endpoints; changes are serialised and durable. */
export class WebhookService {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: WebhookServiceDeps) {}

  /** Reads other replicas' changes (with `id`, its deliveries too), so none serves a stale one. */
  refresh(id?: string): Promise<void> {
    return this.deps.store.refresh(id);
  }

  /** Every endpoint in id order. */
  list(): WebhookEndpoint[] {
    return this.deps.store.list();
  }

  /** One endpoint, or WebhookNotFoundError. */
  get(id: string): WebhookEndpoint {
    const endpoint = this.deps.store.get(id);
    if (endpoint === undefined) throw new WebhookNotFoundError(id);
    return endpoint;
  }

  /** An endpoint's delivery attempts, newest first. */
  attempts(id: string): DeliveryAttempt[] {
    return this.deps.store.attempts(this.get(id).id);
  }

  /** Registers an endpoint; it receives events committed from now on. */
  create(body: unknown): Promise<WebhookEndpoint> {
    const input = parseWebhookInput(body);
    return this.#serial(async () => {
      if (this.deps.store.list().length >= this.deps.maxWebhooks) {
        throw new WebhookLimitError(this.deps.maxWebhooks);
      }
      await this.#checkUrl(input.url);
      const now = new Date(this.deps.clock()).toISOString();
      const endpoint: WebhookEndpoint = {
        id: this.deps.newId(),
        ...input,
        disabled_reason: null,
        last_seq: this.deps.lastSeq(),
        created_at: now,
        updated_at: now,
        version: 1,
        secrets: [{ secret: newSecret(), expires_at: null }],
      };
      return await this.#save(endpoint);
    });
  }

  /** Applies a merge patch of url, types, description and enabled. */
  patch(id: string, patch: unknown, expected?: ExpectedVersions): Promise<WebhookEndpoint> {
    if (!isPlainObject(patch)) {
      throw new ValidationError([{ pointer: "", detail: "must be a JSON object" }]);
    }
    return this.#serial(async () => {
      const current = this.#current(id, expected);
      const input: WebhookInput = parseWebhookInput(
        applyMergePatch(webhookView(current), patch),
      );
      if (input.url !== current.url) await this.#checkUrl(input.url);
      const changed = input.url !== current.url || input.description !== current.description ||
        input.enabled !== current.enabled || input.types.join() !== current.types.join();
      if (!changed) return current;
      const restart = input.enabled && !current.enabled && current.disabled_reason === "retention";
      return await this.#save({
        ...current,
        ...input,
        // Enabling again clears the reason; delivery resumes at the checkpoint, or at the head
        // (like a new endpoint) when the events after the checkpoint are gone.
        disabled_reason: input.enabled ? null : current.disabled_reason,
        last_seq: restart ? this.deps.lastSeq() : current.last_seq,
        updated_at: new Date(this.deps.clock()).toISOString(),
        version: current.version + 1,
      });
    });
  }

  /** Removes an endpoint and its deliveries log. */
  remove(id: string, expected?: ExpectedVersions): Promise<void> {
    return this.#serial(async () => {
      // The store removes only the version checked here: a change another replica committed in
      // between makes it refuse, and the retry answers 412 (or 404 when it is gone) on it.
      const current = this.#current(id, expected);
      await this.deps.store.remove(id, current.version);
      this.deps.onChange?.(id);
    });
  }

  /** A new secret; the previous one keeps signing for ROTATION_OVERLAP_MS. */
  rotateSecret(id: string, expected?: ExpectedVersions): Promise<WebhookEndpoint> {
    return this.#serial(async () => {
      const current = this.#current(id, expected);
      const now = this.deps.clock();
      const expires = new Date(now + ROTATION_OVERLAP_MS).toISOString();
      return await this.#save({
        ...current,
        secrets: [{ secret: newSecret(), expires_at: null }, {
          secret: current.secrets[0].secret,
          expires_at: expires,
        }],
        updated_at: new Date(now).toISOString(),
        version: current.version + 1,
      });
    });
  }

  /** Disables an endpoint with a reason (the dispatcher's verdict); nothing if already off. */
  disable(id: string, reason: string): Promise<void> {
    return this.#serial(async () => {
      const current = this.deps.store.get(id);
      if (current === undefined || !current.enabled) return;
      await this.#save({
        ...current,
        enabled: false,
        disabled_reason: reason,
        updated_at: new Date(this.deps.clock()).toISOString(),
        version: current.version + 1,
      });
    });
  }

  #current(id: string, expected: ExpectedVersions | undefined): WebhookEndpoint {
    const current = this.get(id);
    if (expected !== undefined && expected !== "*" && !expected.includes(current.version)) {
      throw new VersionMismatchError(current.version);
    }
    return current;
  }

  async #checkUrl(url: string): Promise<void> {
    try {
      await this.deps.policy.check(url);
    } catch (error) {
      if (!(error instanceof UnsafeDestinationError)) throw error;
      throw new ValidationError([{ pointer: "/url", detail: error.message }]);
    }
  }

  async #save(endpoint: WebhookEndpoint): Promise<WebhookEndpoint> {
    await this.deps.store.put(endpoint);
    this.deps.onChange?.(endpoint.id);
    return this.deps.store.get(endpoint.id) ?? endpoint;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(() => this.#fresh(work));
    this.#queue = result.catch(() => {});
    return result;
  }

  /**
   * Runs a change on the newest state: if another replica wrote in between, the store refuses the
   * stale write and the change is made again on what it holds now (a stale If-Match then 412s).
   */
  async #fresh<T>(work: () => Promise<T>): Promise<T> {
    for (let tries = 1;; tries++) {
      await this.deps.store.refresh();
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof ExpectedVersionConflictError)) throw error;
        if (tries >= 5) throw new VersionMismatchError(error.actual);
      }
    }
  }
}
