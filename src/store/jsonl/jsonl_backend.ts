import type { Backend } from "../backend.ts";
import { CompactionPolicy } from "./compaction_policy.ts";
import { JsonlEventStore, type JsonlStoreOptions } from "./jsonl_store.ts";
import { JsonlWebhookStore } from "./jsonl_webhook_store.ts";

/** The settings of the JSONL backend. */
export interface JsonlBackendOptions extends JsonlStoreOptions {
  snapshotEvery: number;
  eraseWithinMs: number;
  retentionMs: number;
}

/** The log and the webhook endpoints in `dataDir`, kept by one process (the lock file says so). */
export async function openJsonlBackend(
  dataDir: string,
  options: JsonlBackendOptions,
): Promise<Backend> {
  const events = await JsonlEventStore.open(dataDir, options);
  const webhooks = await JsonlWebhookStore.open(dataDir, { warn: options.warn }).catch(
    async (error) => {
      await events.close();
      throw error;
    },
  );
  return {
    events,
    webhooks,
    maintain: (source, hooks) =>
      new CompactionPolicy(events, source, hooks, {
        snapshotEvery: options.snapshotEvery,
        eraseWithinMs: options.eraseWithinMs,
        retentionMs: options.retentionMs,
        onOutcome: hooks.onOutcome,
      }),
    ownership: () => undefined,
  };
}
