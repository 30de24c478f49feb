/**
 * The history a run of concurrent clients leaves: every request they sent, with what they were told
 * (or that they were told nothing), for the checker (history_checker.ts).
 */

/** A customer as the API answers it (contract §3). */
export interface CustomerBody {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  address: Record<string, unknown> | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
  version: number;
}

/** One write a client sent: its request and, once answered, the answer. */
export interface Op {
  /** Sent as X-Request-Id, so the event the write caused names it. */
  id: string;
  client: number;
  kind: "create" | "put" | "patch" | "delete";
  /** The customer written (a create's is learnt from its answer). */
  customer?: string;
  /** The version If-Match named, when the write was conditional. */
  ifMatch?: number;
  /** The request body (the merge patch of a PATCH). */
  body?: Record<string, unknown>;
  /** performance.now() + timeOrigin when sent and when answered (undefined: never answered). */
  start: number;
  end?: number;
  status?: number;
  /** The answer's ETag version, Log-Seq and body (2xx only). */
  version?: number;
  logSeq?: number;
  answer?: CustomerBody;
  /** Why no answer came (connection refused or cut, time-out). */
  error?: string;
}

/** An event of the feed (contract §8). */
export interface FeedEvent {
  seq: number;
  type: "customer.created" | "customer.updated" | "customer.deleted";
  customer_id: string;
  version: number;
  request_id: string;
  data: CustomerBody | null;
}

/** A write the client was told succeeded. */
export function acknowledged(op: Op): boolean {
  return op.status !== undefined && op.status >= 200 && op.status < 300;
}

/** A write the client was told failed and changed nothing (a 4xx). */
export function refused(op: Op): boolean {
  return op.status !== undefined && op.status >= 400 && op.status < 500;
}
