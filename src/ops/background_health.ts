/**
 * How background work that needs the database fares: each task (the feed index, the log follower,
 * webhook leases and checkpoints, maintenance, the startup replay) reports its failures here and
 * retries by itself. The first failure of a task in a row is logged as a warning, a recovery once;
 * /metrics shows the failures by task and whether the database answers now.
 */
import type { Logger } from "./log.ts";

/** Failures by background task, and the database's reachability, for logs and /metrics. */
export class BackgroundHealth {
  #log: Pick<Logger, "warn" | "info">;
  #reachable: (() => boolean) | undefined;
  #failures = new Map<string, number>();
  /** Tasks whose last attempt failed. */
  #failing = new Set<string>();

  /** `reachable`: whether the database answered the last time it was asked (none: no database). */
  constructor(log: Pick<Logger, "warn" | "info">, reachable?: () => boolean) {
    this.#log = log;
    this.#reachable = reachable;
  }

  /** A task failed and will try again. */
  failed(task: string, error: unknown): void {
    this.#failures.set(task, (this.#failures.get(task) ?? 0) + 1);
    if (this.#failing.has(task)) return;
    this.#failing.add(task);
    this.#log.warn("Background work failed; it is tried again", {
      task,
      error: String(error),
    });
  }

  /**
   * The last line: a rejection nothing handled is logged and counted instead of ending the process
   * (every background task handles its own failures, so one reaching here is a bug to report).
   */
  guardUnhandled(log: Pick<Logger, "error">): void {
    globalThis.addEventListener("unhandledrejection", (event) => {
      event.preventDefault();
      this.failed("unhandled", event.reason);
      log.error("Unhandled rejection", { error: String(event.reason) });
    });
  }

  /** A task that had failed works again. */
  succeeded(task: string): void {
    if (this.#failing.delete(task)) this.#log.info("Background work recovered", { task });
  }

  /** The Prometheus lines of these figures. */
  render(): string[] {
    const reachable = this.#reachable === undefined ? [] : [
      "# HELP database_reachable 1 while the database answers, 0 while it cannot be reached.",
      "# TYPE database_reachable gauge",
      `database_reachable ${this.#reachable() ? 1 : 0}`,
    ];
    return [
      ...reachable,
      "# HELP background_failures_total Failed attempts of background work, by task.",
      "# TYPE background_failures_total counter",
      ...[...this.#failures].map(([task, n]) => `background_failures_total{task="${task}"} ${n}`),
    ];
  }
}
