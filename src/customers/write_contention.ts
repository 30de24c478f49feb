import { EmailInUseError, ExpectedVersionConflictError } from "../store/store_errors.ts";

/** How long a write may keep losing races to other replicas before it gives up. */
export const WRITE_DEADLINE_MS = 5_000;

/** A write kept losing to other replicas' writes until its deadline; nothing was changed. */
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
  clock: () => number;
  deadlineMs: number;
}

/** Runs `attempt`, catching up and deciding anew while a shared store refuses it, to a deadline. */
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
