import type { EventStore, ReplayedEvent } from "./event_store.ts";
import type { ReloadableSource } from "./snapshot_source.ts";
import type { StoreMaintenance } from "./store_maintenance.ts";
import type { WebhookStore } from "./webhook_store.ts";

/** Where a backend's maintenance reports: its log lines, and how each compaction and replay fares. */
export interface MaintenanceHooks {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** How a background compaction ended: undefined when it succeeded. */
  onOutcome(error: unknown): void;
  /** A replay lost a shared store's connection and tries again from what it applied. */
  onRecoveryRetry(error: unknown): void;
}

/** Recovery and housekeeping, with what a store shared by replicas adds. */
export interface BackendMaintenance extends StoreMaintenance {
  /** Another replica's delete: erased here too, should that replica stop before it does. */
  noteFollowed?(event: ReplayedEvent): void;
  /** Moves the state on to the newest snapshot (seq), or undefined when none is newer. */
  reload?(onJump: () => void): Promise<number | undefined>;
}

/** Which replica delivers each webhook endpoint: one at a time, moving when one stops. */
export interface DeliveryOwnership {
  owns(id: string): boolean;
  /** Takes a new or enabled endpoint now rather than at the next tick. */
  check(): void;
  start(): void;
  stop(): Promise<void>;
}

/** A log other replicas write too. */
export interface SharedLog {
  /** False while the database cannot be reached. */
  readonly reachable: boolean;
  onReachable(listener: (reachable: boolean, error?: unknown) => void): void;
}

/** A storage backend as the composition root runs it: the log, the webhook endpoints, upkeep. */
export interface Backend {
  readonly events: EventStore;
  readonly webhooks: WebhookStore;
  /** Set when other replicas share the log. */
  readonly shared?: SharedLog;
  maintain(source: ReloadableSource, hooks: MaintenanceHooks): BackendMaintenance;
  /** Webhook delivery ownership; undefined when this process delivers every endpoint. */
  ownership(onChange: (id: string) => void): DeliveryOwnership | undefined;
  /** Prometheus lines of the backend's own, rendered with the service's metrics. */
  metrics?(): string[];
}
