import type { Logger } from "./log.ts";
import { watchParent } from "./parent_watch.ts";

/**
 * Stops the service once on SIGINT, SIGTERM or the launcher's end: `steps` run in order (stop
 * accepting, finish in flight, flush, release the lock), then the process exits 0. Returns whether
 * a stop has begun, for a startup still under way.
 */
export function onShutdown(log: Logger, steps: () => Promise<void>): () => boolean {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    await steps();
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  watchParent(() => stop("launcher gone"));
  return () => stopping;
}
