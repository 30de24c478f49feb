import type { EventStore } from "../store/event_store.ts";
import { StoreClosedError } from "../store/store_errors.ts";
import type { CustomerService } from "./customer_service.ts";

/**
 * Keeps a replica's read model up with a log other replicas write to: each time the store's
 * lastSeq moves past what the service applied, the service catches up. Returns a stop function.
 */
export function followLog(
  store: EventStore,
  service: CustomerService,
  onError: (error: unknown) => void,
): () => void {
  const controller = new AbortController();
  const signal = controller.signal;
  void (async () => {
    while (!signal.aborted) {
      try {
        await store.waitForCommit(service.appliedSeq, signal);
        await service.catchUp();
      } catch (error) {
        if (signal.aborted || error instanceof StoreClosedError) return;
        onError(error);
        // The database is away: try again shortly (the store reconnects by itself).
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  })();
  return () => controller.abort(new Error("The log follower stopped"));
}
