/**
 * A replica on a shared log: reports the database going and coming back, applies the others'
 * events (from a snapshot if retention dropped some), holds Min-Log-Seq requests until applied.
 */
import { MIN_LOG_SEQ_WAIT_MS, replicaGate } from "../http/replica_gate.ts";
import type { LogSeqRule } from "../http/log_seq_rule.ts";
import type { BackgroundHealth } from "../ops/background_health.ts";
import type { Logger } from "../ops/log.ts";
import type { BackendMaintenance, SharedLog } from "../store/backend.ts";
import type { EventStore } from "../store/event_store.ts";
import type { CustomerService } from "./customer_service.ts";
import type { StartSpan } from "../lib/trace_span.ts";
import { followLog } from "./log_follower.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/** What linking a replica to the others needs. */
export interface ReplicaLinkDeps {
  shared: SharedLog;
  store: EventStore;
  service: CustomerService;
  maintenance: BackendMaintenance;
  /** Forgets every event kept in memory (the feed's recent events), after a jump to a snapshot. */
  forgetRecent: () => void;
  log: Logger;
  health: BackgroundHealth;
  /** Traces the waits for Min-Log-Seq (tracing on). */
  span?: StartSpan;
}

/** Links the replica before its replay; `serve` starts following once the replay is done. */
export function linkReplica(
  deps: ReplicaLinkDeps,
): { serve(app: Handler, rule: LogSeqRule): Handler } {
  const { shared, service, maintenance, log, health } = deps;
  const follower = service.follower;
  shared.onReachable((reachable, error) =>
    reachable
      ? log.info("The database answers again")
      : log.warn("The database cannot be reached; writes and /readyz answer 503 until it answers", {
        error: String(error),
      })
  );
  follower.addFollowListener((event) => maintenance.noteFollowed?.(event));
  // Customers deleted and erased while this replica was cut off were never seen deleted here:
  // after a jump to a snapshot the recent events forget everything they held.
  follower.onLogTruncated(async () => {
    const seq = await maintenance.reload?.(deps.forgetRecent);
    if (seq === undefined) return false;
    log.warn("The log no longer holds the events this replica missed; went on from a snapshot", {
      snapshot_seq: seq,
    });
    return true;
  });
  return {
    serve(app, rule) {
      followLog(
        deps.store,
        follower,
        (error) => health.failed("log_follower", error),
        () => health.succeeded("log_follower"),
      );
      const state = {
        get appliedSeq() {
          return service.appliedSeq;
        },
        get reachable() {
          return shared.reachable;
        },
      };
      return replicaGate(app, state, MIN_LOG_SEQ_WAIT_MS, rule, deps.span);
    },
  };
}
