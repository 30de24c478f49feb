/** The webhook tables' statements and rows, and the copy of endpoints into them (migrate). */
import { ATTEMPTS_KEPT, type DeliveryAttempt, type WebhookEndpoint } from "../webhook_store.ts";
import type { PgClient } from "./pg_connection.ts";

export interface EndpointRow {
  id: string;
  version: number;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  last_seq: string;
  created_at: string;
  updated_at: string;
  secrets: WebhookEndpoint["secrets"];
}

export interface AttemptRow {
  endpoint_id: string;
  seq: string;
  event_type: string;
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
}

export const SELECT_ENDPOINTS =
  `SELECT id, version, url, types, description, enabled, disabled_reason,
  last_seq, created_at, updated_at, secrets FROM webhook_endpoints`;

/** The newest attempts of the endpoints in $1, oldest first. */
export const SELECT_ATTEMPTS =
  `SELECT endpoint_id, seq, event_type, attempt, at, status_code, error,
  duration_ms, next_attempt_at FROM (
    SELECT *, row_number() OVER (PARTITION BY endpoint_id ORDER BY n DESC) AS newest
    FROM webhook_attempts WHERE endpoint_id = ANY($1::text[])) a
  WHERE newest <= ${ATTEMPTS_KEPT} ORDER BY endpoint_id, n`;

/** Inserts an endpoint, or writes over the stored one (a WHERE may follow the SET). */
export const UPSERT =
  `INSERT INTO webhook_endpoints AS w (id, version, url, types, description, enabled,
    disabled_reason, last_seq, created_at, updated_at, secrets)
  VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10, $11::jsonb)
  ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, url = EXCLUDED.url,
    types = EXCLUDED.types, description = EXCLUDED.description, enabled = EXCLUDED.enabled,
    disabled_reason = EXCLUDED.disabled_reason,
    last_seq = greatest(w.last_seq, EXCLUDED.last_seq), created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at, secrets = EXCLUDED.secrets`;

/** Writes only over an older version: no row comes back when the stored one is as new or newer. */
export const PUT = `${UPSERT}
  WHERE w.version < EXCLUDED.version
  RETURNING last_seq`;

/** A change of a stored endpoint, only over an older version: no row comes back otherwise. */
export const CHANGE = `UPDATE webhook_endpoints w SET version = $2, url = $3, types = $4::text[],
    description = $5, enabled = $6, disabled_reason = $7, last_seq = greatest(w.last_seq, $8),
    created_at = $9, updated_at = $10, secrets = $11::jsonb
  WHERE w.id = $1 AND w.version < $2
  RETURNING last_seq`;

/** A copied endpoint as it is, whatever is stored. */
export const RESTORE = `${UPSERT}
  RETURNING last_seq`;

/** Deletes an endpoint, only at version $2 unless $2 is null; the deleted row comes back. */
export const REMOVE = `DELETE FROM webhook_endpoints
  WHERE id = $1 AND ($2::integer IS NULL OR version = $2::integer) RETURNING version`;

export const CHECKPOINTS = `UPDATE webhook_endpoints w SET last_seq = c.seq
  FROM unnest($1::text[], $2::bigint[]) AS c(id, seq)
  WHERE w.id = c.id AND w.last_seq < c.seq`;

/**
 * Attempts in their given order; those of an endpoint removed meanwhile are dropped. Answers the
 * endpoint and n of each row.
 */
export const INSERT_ATTEMPTS =
  `INSERT INTO webhook_attempts (endpoint_id, seq, event_type, attempt, at,
    status_code, error, duration_ms, next_attempt_at, sent_by)
  SELECT a.endpoint_id, a.seq, a.event_type, a.attempt, a.at, a.status_code, a.error,
    a.duration_ms, a.next_attempt_at, $2
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(doc, ord),
    jsonb_to_record(x.doc) AS a(endpoint_id text, seq bigint, event_type text, attempt integer,
      at text, status_code integer, error text, duration_ms double precision, next_attempt_at text)
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = a.endpoint_id)
  ORDER BY x.ord
  RETURNING endpoint_id, n`;

/** Drops each endpoint's attempts with n in ($2, $3] (AttemptTrims decides where). */
export const TRIM_ATTEMPTS = `DELETE FROM webhook_attempts a
  USING unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(id, after, upto)
  WHERE a.endpoint_id = c.id AND a.n > c.after AND a.n <= c.upto`;

/** Each endpoint's newest ATTEMPTS_KEPT of `attempts`, in order: older ones would be trimmed. */
export function newestAttempts<A extends { endpoint_id: string }>(attempts: A[]): A[] {
  const left = new Map<string, number>();
  const kept: A[] = [];
  for (let i = attempts.length - 1; i >= 0; i--) {
    const id = attempts[i].endpoint_id;
    const count = left.get(id) ?? 0;
    if (count < ATTEMPTS_KEPT) left.set(id, count + 1), kept.push(attempts[i]);
  }
  return kept.reverse();
}

/**
 * Writes endpoints with their deliveries logs (newest first, as attempts() gives them) through
 * `client`, e.g. in the transaction of `deno task migrate`'s copy; attempts are marked sent by
 * `sentBy`.
 */
export async function insertWebhooks(
  client: PgClient,
  endpoints: readonly WebhookEndpoint[],
  attemptsOf: (id: string) => DeliveryAttempt[],
  sentBy: string,
): Promise<void> {
  for (const endpoint of endpoints) {
    await client.query(PUT, putValues(endpoint));
    const attempts = attemptsOf(endpoint.id).reverse().map((attempt) => ({
      endpoint_id: endpoint.id,
      ...attempt,
    }));
    if (attempts.length > 0) {
      await client.query(INSERT_ATTEMPTS, [JSON.stringify(attempts), sentBy]);
    }
  }
}

/** The PUT statement's parameters of an endpoint. */
export function putValues(endpoint: WebhookEndpoint): unknown[] {
  return [
    endpoint.id,
    endpoint.version,
    endpoint.url,
    endpoint.types,
    endpoint.description,
    endpoint.enabled,
    endpoint.disabled_reason,
    endpoint.last_seq,
    endpoint.created_at,
    endpoint.updated_at,
    JSON.stringify(endpoint.secrets),
  ];
}

/** An endpoint of its row. */
export function endpointOf(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    last_seq: Number(row.last_seq),
    created_at: row.created_at,
    updated_at: row.updated_at,
    version: row.version,
    secrets: row.secrets,
  };
}

/** A delivery attempt of its row. */
export function attemptOf(row: AttemptRow): DeliveryAttempt {
  return {
    seq: Number(row.seq),
    event_type: row.event_type,
    attempt: row.attempt,
    at: row.at,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    next_attempt_at: row.next_attempt_at,
  };
}
