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
