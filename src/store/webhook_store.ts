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

/** Durable webhook endpoints, checkpoints and deliveries logs (webhook_store_contract.ts). */
export interface WebhookStore {
  list(): WebhookEndpoint[];
  get(id: string): WebhookEndpoint | undefined;
  /**
   * Creates or changes an endpoint; its checkpoint never moves back. A stale `version`, or a
   * change of an endpoint since removed, rejects with ExpectedVersionConflictError.
   */
  put(endpoint: WebhookEndpoint): Promise<void>;
  /** Stores a copied endpoint as it is, with no version check (`deno task migrate`). */
  restore(endpoint: WebhookEndpoint): Promise<void>;
  /**
   * Removes an endpoint and its deliveries log. With `version`, only at that version, so a delete
   * checked against a stale read cannot drop a newer change.
   */
  remove(id: string, version?: number): Promise<void>;
  /** Moves an endpoint's checkpoint forward to `lastSeq`; ignored for an unknown endpoint. */
  checkpoint(id: string, lastSeq: number): Promise<void>;
  /** Appends an attempt to an endpoint's log, dropping its oldest beyond the bound. */
  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void>;
  /** An endpoint's attempts, newest first. */
  attempts(id: string): DeliveryAttempt[];
  /** Reads what other processes wrote since (with `id`, that endpoint's log too). */
  refresh(id?: string): Promise<void>;
  /** Waits for pending writes, then releases the store. */
  close(): Promise<void>;
}

/** How many attempts each endpoint's deliveries log keeps at least. */
export const ATTEMPTS_KEPT = 100;
