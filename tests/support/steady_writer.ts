/**
 * Writes at a steady rate while a test breaks something: creates customers on a fixed schedule
 * (not one after another, so a slow answer does not slow the rate), over whichever clients the
 * test gives, until stopped. A request that fails (a killed server) is not retried.
 */
import { type ApiClient, newCustomer } from "./api.ts";

/** Starts writing `perSecond` creates a second over `clients()` (asked before each write). */
export function steadyWriter(clients: () => ApiClient[], perSecond: number) {
  let stopped = false;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const apis = clients();
      if (apis.length > 0) {
        const api = apis[sent % apis.length];
        const write: Promise<void> = api.post("/api/customers", { json: newCustomer() })
          .then(() => {}, () => {})
          .finally(() => inFlight.delete(write));
        inFlight.add(write);
      }
      sent++;
      const next = started + (sent * 1000) / perSecond;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  })();
  return {
    /** Stops writing and waits for the writes under way. */
    stop: async (): Promise<void> => {
      stopped = true;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}
