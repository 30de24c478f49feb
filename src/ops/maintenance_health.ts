/** Whether compaction works: counts outcomes, and /readyz answers 503 after several failures. */
import { MaintenanceFailingError } from "../http/errors.ts";

/** Failed compactions in a row after which the service reports itself not ready. */
export const FAILURES_BEFORE_UNREADY = 3;

export class MaintenanceHealth {
  failures = 0;
  failuresInARow = 0;
  /** Unix seconds of the last successful compaction; 0 if none yet. */
  lastSuccessSeconds = 0;
  #lastError = "";

  succeeded(atMs = Date.now()): void {
    this.failuresInARow = 0;
    this.lastSuccessSeconds = atMs / 1000;
  }

  /** Notes a compaction that failed, with its cause (which names the file). */
  failed(error: unknown): void {
    this.failures++;
    this.failuresInARow++;
    this.#lastError = error instanceof Error ? error.message : String(error);
  }

  /** The reason /readyz answers 503, or undefined while maintenance works. */
  problem(): MaintenanceFailingError | undefined {
    if (this.failuresInARow < FAILURES_BEFORE_UNREADY) return undefined;
    return new MaintenanceFailingError(this.failuresInARow, this.#lastError);
  }

  render(): string[] {
    return [
      "# HELP compaction_failures_total Compactions (snapshot and segment rewrite) that failed.",
      "# TYPE compaction_failures_total counter",
      `compaction_failures_total ${this.failures}`,
      "# HELP compaction_failures_in_a_row Failed compactions since the last success.",
      "# TYPE compaction_failures_in_a_row gauge",
      `compaction_failures_in_a_row ${this.failuresInARow}`,
      "# HELP last_compaction_success_timestamp_seconds When a compaction last succeeded (0: never).",
      "# TYPE last_compaction_success_timestamp_seconds gauge",
      `last_compaction_success_timestamp_seconds ${this.lastSuccessSeconds}`,
    ];
  }
}
