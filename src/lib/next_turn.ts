import { setImmediate } from "node:timers";

/**
 * Resolves on a later turn of the event loop, after pending I/O has run: long work that awaits it
 * between slices lets other requests in. (A zero setTimeout waits a millisecond or more.)
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
