/**
 * Tells a database that cannot be reached (refused, dropped, timed out, shutting down) from a
 * statement the database refused: background work waits out the first and reports the second.
 */
import { retryPauseMs } from "../../lib/retry_pause.ts";

/** SQLSTATE classes of a lost or refused connection: 08 connection exception, 57 operator intervention. */
const CONNECTION_CLASSES = new Set(["08", "57"]);

/**
 * True when `error` (or the cause it wraps) is not an answer of the database to a statement: a
 * driver or socket error (no SQLSTATE), or a SQLSTATE of a class above.
 */
export function isConnectionFailure(error: unknown): boolean {
  let inner = error;
  while (inner instanceof Error && inner.cause !== undefined) inner = inner.cause;
  const code = (inner as { code?: unknown } | undefined)?.code;
  const sqlState = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  return sqlState === undefined || CONNECTION_CLASSES.has(sqlState.slice(0, 2));
}

/** What whileUnreachable is told: when to give up, whom to tell of a retry, what to do before it. */
export interface Waiting {
  /** True once waiting should end: the failure is thrown then. */
  stopped: () => boolean;
  onRetry?: (error: unknown) => void;
  retry?: () => void;
}

/** Runs `work` until it does not fail for want of the database, waiting 250 ms doubling to 5 s. */
export async function whileUnreachable<T>(work: () => Promise<T>, waiting: Waiting): Promise<T> {
  for (let failures = 0;; failures++) {
    try {
      return await work();
    } catch (error) {
      if (!isConnectionFailure(error) || waiting.stopped()) throw error;
      waiting.onRetry?.(error);
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs(failures)));
      waiting.retry?.();
    }
  }
}
