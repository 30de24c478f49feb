import type { Backend } from "../backend.ts";
import type { CommitTrace } from "../commit_trace.ts";
import { PostgresEventStore } from "./postgres_event_store.ts";
import { PostgresMaintenance } from "./postgres_maintenance.ts";
import { PostgresWebhookStore } from "./postgres_webhook_store.ts";
import { WebhookLeases } from "./webhook_leases.ts";

/** The settings of the PostgreSQL backend. */
export interface PostgresBackendOptions {
  snapshotEvery: number;
  eraseWithinMs: number;
  retentionMs: number;
  warn: (msg: string, fields: Record<string, unknown>) => void;
  /** Told of every group commit, with its database call timed (tracing on). */
  trace?: CommitTrace;
}

/**
 * The log and the webhook endpoints in the database at `url`, shared by every replica: each
 * replica follows the others' commits, and webhook delivery moves by lease.
 */
export async function openPostgresBackend(
  url: string,
  options: PostgresBackendOptions,
): Promise<Backend> {
  const events = await PostgresEventStore.open(url, {
    warn: options.warn,
    trace: options.trace,
  });
  const webhooks = await PostgresWebhookStore.open(url, { warn: options.warn }).catch(
    async (error) => {
      await events.close();
      throw error;
    },
  );
  return {
    events,
    webhooks,
    shared: events,
    metrics: () => events.commitStats.render(),
    maintain: (source, hooks) =>
      new PostgresMaintenance(events, source, {
        snapshotEvery: options.snapshotEvery,
        retentionMs: options.retentionMs,
        eraseWithinMs: options.eraseWithinMs,
        onRecoveryRetry: hooks.onRecoveryRetry,
        onSnapshot: (done) => hooks.info("compaction done", done),
        onOutcome: (error) => {
          if (error !== undefined) hooks.error("Compaction failed", { error: String(error) });
          hooks.onOutcome(error);
        },
      }),
    ownership: (onChange) =>
      new WebhookLeases({
        pool: webhooks.pool,
        holder: webhooks.holder,
        refresh: () => webhooks.refresh(),
        ids: () => webhooks.list().map((endpoint) => endpoint.id),
        onChange,
        warn: options.warn,
      }),
  };
}
