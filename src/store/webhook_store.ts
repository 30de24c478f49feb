/** A secret that signs deliveries; an old one keeps signing until `expires_at` after a rotation. */
export interface WebhookSecret {
  /** `whsec_` + base64 of 32 random bytes. */
  secret: string;
  /** When it stops signing (ISO time); null for the current secret. */
  expires_at: string | null;
}

/** A registered webhook endpoint as stored, secrets included (never served as such). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  /** Why delivery stopped (`failures`, `gone`, `retention`), or null. */
  disabled_reason: string | null;
  /** Events up to this seq are delivered (or skipped by `types`). */
  last_seq: number;
  created_at: string;
  updated_at: string;
  /** 1 on create, +1 on every change of the fields above but `last_seq`. */
  version: number;
  /** The newest secret first. */
  secrets: WebhookSecret[];
}

/** One delivery attempt as the deliveries log keeps it. */
export interface DeliveryAttempt {
  /** The event's seq; 0 for a ping. */
  seq: number;
  event_type: string;
  /** 1 for the first try of this event, +1 per retry. */
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** When the next try is due, or null when none follows. */
  next_attempt_at: string | null;
}

/**
 * Durable webhook endpoints, their delivery checkpoints and deliveries logs: the port the webhook
 * service owns. Backends: store/memory (the reference), store/jsonl, store/postgres; every one
 * passes tests/store/webhook_store_contract.ts. A resolved write is durable. Reads answer from
 * what the store last saw; a store that other processes write too (PostgreSQL) catches up on
 * refresh().
 */
export interface WebhookStore {
  /** Every endpoint, in id order. */
  list(): WebhookEndpoint[];
  /** One endpoint, or undefined. */
  get(id: string): WebhookEndpoint | undefined;
  /**
   * Creates (at `version` 1) or changes an endpoint; its checkpoint never moves back (the newer of
   * the stored and the given `last_seq` stays), so a change racing a delivery loses no progress.
   * A put whose `version` is not above the stored one is stale (another writer got there first),
   * and a change (version above 1) of an endpoint no longer stored comes after its removal: both
   * reject with ExpectedVersionConflictError (`actual` 0 when gone), writing nothing, so a change
   * read before another writer's remove never brings the endpoint back.
   */
  put(endpoint: WebhookEndpoint): Promise<void>;
  /**
   * Stores a copied endpoint as it is, whatever is stored (`deno task migrate` into an empty
   * store): no version check.
   */
  restore(endpoint: WebhookEndpoint): Promise<void>;
  /**
   * Removes an endpoint and its deliveries log; nothing when it does not exist. With `version`,
   * removes it only at that version: when another writer changed or removed it first, rejects
   * with ExpectedVersionConflictError (`actual` 0 when gone), removing nothing, so a delete
   * checked against a read that went stale meanwhile cannot drop a newer change.
   */
  remove(id: string, version?: number): Promise<void>;
  /** Moves an endpoint's checkpoint forward to `lastSeq`; ignored for an unknown endpoint. */
  checkpoint(id: string, lastSeq: number): Promise<void>;
  /** Appends an attempt to an endpoint's log, dropping its oldest beyond the bound. */
  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void>;
  /** An endpoint's attempts, newest first. */
  attempts(id: string): DeliveryAttempt[];
  /**
   * Reads what other processes wrote since: every endpoint, and with `id` that endpoint's
   * deliveries log too. Nothing to do for a store that only this process writes.
   */
  refresh(id?: string): Promise<void>;
  /** Waits for pending writes, then releases the store. */
  close(): Promise<void>;
}

/** How many attempts each endpoint's deliveries log keeps at least. */
export const ATTEMPTS_KEPT = 100;
