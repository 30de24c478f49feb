import { EmailInUseError, ExpectedVersionConflictError } from "../store/store_errors.ts";

/** How long a write may keep losing races to other replicas before it gives up (503). */
export const WRITE_DEADLINE_MS = 5_000;

/**
 * A write lost the race to other replicas' writes of the same customer until its deadline: nothing
 * was changed, and the client may send it again.
 */
export class WriteContendedError extends Error {
  constructor(deadlineMs: number) {
    super(
      `Other writes of this customer kept winning for ${deadlineMs / 1000} s; nothing was changed`,
    );
    this.name = "WriteContendedError";
  }
}

/** How a contended write goes on: the log to catch up with, the clock and the deadline. */
export interface Contention {
  catchUp: () => Promise<void>;
  /** Milliseconds since the epoch. */
  clock: () => number;
  deadlineMs: number;
}

/**
 * Runs `attempt`; when a shared store refuses it because another replica wrote first, catches up
 * with the log and runs it again (it decides anew), until it commits or the deadline passes.
 */
export async function untilUncontended<T>(
  attempt: () => Promise<T>,
  { catchUp, clock, deadlineMs }: Contention,
): Promise<T> {
  const deadline = clock() + deadlineMs;
  for (let lost = 0;; lost++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ExpectedVersionConflictError || error instanceof EmailInUseError)) {
        throw error;
      }
      await catchUp();
      if (clock() >= deadline) throw new WriteContendedError(deadlineMs);
      // Replicas that keep losing to each other spread out, so one of them wins.
      if (lost > 0) await delay(Math.random() * Math.min(50, 2 ** lost));
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
