/** What `deno task migrate` compares: counts, seqs, SHA-256 of events, state and webhooks. */
import { createHash } from "node:crypto";
import { eventPages, firstSeqOf, type MigrationLog } from "./migration_log.ts";
import type { WebhookEndpoint } from "../store/webhook_store.ts";

/** One side's summary; two logs are copies of each other when every field is equal. */
export interface LogDigest {
  head: number;
  firstSeq: number;
  events: number;
  lastEventSeq: number;
  eventsSha256: string;
  customers: number;
  stateRecords: number;
  stateSha256: string;
  webhooks: number;
  webhooksSha256: string;
}

/** Reads the whole log up to its head and digests it. */
export async function digestOf(log: MigrationLog): Promise<LogDigest> {
  const firstSeq = await firstSeqOf(log.store);
  const events = createHash("sha256");
  let count = 0;
  let lastEventSeq = 0;
  for await (const page of eventPages(log.store, firstSeq, log.head)) {
    for (const e of page) {
      const key = e.idempotency_key ?? null;
      const envelope = [e.seq, e.type, e.id, e.version, e.time, e.actor, e.request_id, key];
      envelope.push(e.request_hash ?? null);
      events.update(`${JSON.stringify(envelope)}\n${e.dataJson}\n`);
    }
    count += page.length;
    lastEventSeq = page[page.length - 1].seq;
  }
  const records = [...log.service.snapshots.records()].sort();
  const state = createHash("sha256");
  for (const record of records) state.update(`${record}\n`);
  const endpoints = log.webhooks?.list() ?? [];
  const webhooks = createHash("sha256");
  for (const endpoint of endpoints) {
    webhooks.update(`${JSON.stringify(canonical(endpoint))}\n`);
    const attempts = log.webhooks!.attempts(endpoint.id).map((a) => [
      a.seq,
      a.event_type,
      a.attempt,
      a.at,
      a.status_code,
      a.error,
      a.duration_ms,
      a.next_attempt_at,
    ]);
    webhooks.update(`${JSON.stringify(attempts)}\n`);
  }
  return {
    head: log.head,
    firstSeq,
    events: count,
    lastEventSeq,
    eventsSha256: events.digest("hex"),
    customers: log.projection.size,
    stateRecords: records.length,
    stateSha256: state.digest("hex"),
    webhooks: endpoints.length,
    webhooksSha256: webhooks.digest("hex"),
  };
}

/** An endpoint with its fields in one order, however its store built the object. */
function canonical(endpoint: WebhookEndpoint): unknown[] {
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
    endpoint.secrets.map((s) => [s.secret, s.expires_at]),
  ];
}

/** The fields where two digests differ, as "name: source → copy". */
export function differences(source: LogDigest, copy: LogDigest): string[] {
  return (Object.keys(source) as (keyof LogDigest)[])
    .filter((key) => source[key] !== copy[key])
    .map((key) => `${key}: ${source[key]} → ${copy[key]}`);
}
