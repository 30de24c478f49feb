/** The backend the configuration names, opened; and how its failures read to an operator. */
import type { Config } from "../config.ts";
import { EXIT_IO, StartupError } from "../lib/startup_error.ts";
import type { Backend, MaintenanceHooks } from "../store/backend.ts";
import type { CommitTrace } from "../store/commit_trace.ts";
import type { RecoveryReport } from "../store/store_maintenance.ts";
import { openJsonlBackend } from "../store/jsonl/jsonl_backend.ts";
import { openPostgresBackend } from "../store/postgres/postgres_backend.ts";
import type { BackgroundHealth } from "./background_health.ts";
import { dataDirFailure, prepareDataDir, replayFailure } from "./data_dir_setting.ts";
import type { Logger } from "./log.ts";
import type { MaintenanceHealth } from "./maintenance_health.ts";
import type { Metrics } from "./metrics.ts";

/**
 * The PostgreSQL backend with DATABASE_URL (DATA_DIR then holds only a dev secret), else JSONL;
 * its group commits told to `trace` (tracing on).
 */
export async function openBackend(
  config: Config,
  log: Logger,
  metrics: Metrics,
  trace?: CommitTrace,
): Promise<Backend> {
  const options = {
    snapshotEvery: config.snapshotEvery,
    eraseWithinMs: config.eraseWithinSeconds * 1000,
    retentionMs: config.eventRetentionMs,
    warn: log.warn,
    trace,
  };
  if (config.databaseUrl !== undefined) {
    const backend = await openPostgresBackend(config.databaseUrl, options)
      .catch((error) => Promise.reject(databaseFailure(error)));
    metrics.include(() => backend.metrics?.() ?? []);
    if (config.keySource.kind === "dev") await prepareDataDir(config.dataDir);
    return backend;
  }
  await prepareDataDir(config.dataDir);
  return await openJsonlBackend(config.dataDir, {
    ...options,
    segmentMaxBytes: config.segmentMaxBytes,
    onFatal: (error) => {
      log.error("fsync failed; stopping so that no write is acknowledged without being durable", {
        error: String(error),
      });
      // Give the batch's 503 answers a moment to leave, then stop.
      setTimeout(() => Deno.exit(EXIT_IO), 200);
    },
    sync: async (file) => {
      const started = performance.now();
      await file.syncData();
      metrics.observeFsync((performance.now() - started) / 1000);
    },
  }).catch((error) => Promise.reject(dataDirFailure(error, config.dataDir)));
}

/** Where the backend's maintenance reports: the log, /readyz's upkeep, and (shared) the health. */
export function maintenanceHooks(
  backend: Backend,
  log: Logger,
  health: BackgroundHealth,
  upkeep: MaintenanceHealth,
): MaintenanceHooks {
  return {
    info: log.info,
    warn: log.warn,
    error: log.error,
    onRecoveryRetry: (error) => health.failed("replay", error),
    onOutcome: (error) => {
      if (backend.shared !== undefined) {
        if (error === undefined) health.succeeded("maintenance");
        else health.failed("maintenance", error);
      }
      return error === undefined ? upkeep.succeeded() : upkeep.failed(error);
    },
  };
}

/** The startup's "replay done" line: what recovery loaded, how many customers, how long. */
export function logRecovery(
  log: Logger,
  recovery: RecoveryReport,
  customers: number,
  ms: number,
): void {
  log.info("replay done", {
    snapshot_seq: recovery.snapshotSeq,
    snapshot_records: recovery.snapshotRecords,
    events: recovery.eventsReplayed,
    customers,
    ms,
  });
}

/** Why the startup replay failed, in the words of the backend's setting. */
export function recoveryFailure(config: Config, error: unknown): Error {
  return config.databaseUrl === undefined
    ? replayFailure(error, config.dataDir)
    : databaseFailure(error);
}

/** A database that cannot be reached or migrated: one line naming DATABASE_URL. */
function databaseFailure(error: unknown): StartupError {
  return new StartupError(
    `the database in DATABASE_URL cannot be used: ${String(error)}. ` +
      "Check that PostgreSQL runs and that the URL, user and database are right",
    EXIT_IO,
  );
}
