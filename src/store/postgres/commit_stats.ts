/**
 * Where the group commits of one replica spend their time, rendered with the service's metrics:
 * groups and their sizes, round trips, time waiting for a pooled connection, and the time from
 * sending a group to its answer (the log-head lock is held for the part after it was taken).
 */
export class CommitStats {
  groups = 0;
  appends = 0;
  events = 0;
  roundTrips = 0;
  /** Seconds from wanting a connection to having it. */
  poolWaitSeconds = 0;
  /** Seconds from sending a group to its answer. */
  commitSeconds = 0;
  /** Seconds the groups waited for the log-head lock, as the database measured them. */
  lockWaitSeconds = 0;
  /** The most groups in flight at once. */
  maxInFlight = 0;

  /** Counts one group's figures. */
  observe(appends: number, events: number, roundTrips: number, lockWaitSeconds: number): void {
    this.groups++;
    this.appends += appends;
    this.events += events;
    this.roundTrips += roundTrips;
    this.lockWaitSeconds += lockWaitSeconds;
  }

  /** Prometheus lines (counters). */
  render(): string[] {
    const counters: [string, string, number][] = [
      ["groups", "Group commits made by this replica.", this.groups],
      ["group_appends", "Appends committed or refused in those groups.", this.appends],
      ["group_events", "Events written by those groups.", this.events],
      ["round_trips", "Statements sent to PostgreSQL for those groups.", this.roundTrips],
      ["pool_wait_seconds", "Seconds groups waited for a pooled connection.", this.poolWaitSeconds],
      ["commit_seconds", "Seconds from sending a group to its answer.", this.commitSeconds],
      ["lock_wait_seconds", "Seconds groups waited for the log-head lock.", this.lockWaitSeconds],
    ];
    return [
      ...counters.flatMap(([name, help, value]) => [
        `# HELP pg_commit_${name}_total ${help}`,
        `# TYPE pg_commit_${name}_total counter`,
        `pg_commit_${name}_total ${value}`,
      ]),
      "# HELP pg_commit_max_in_flight Most group commits in flight at once.",
      "# TYPE pg_commit_max_in_flight gauge",
      `pg_commit_max_in_flight ${this.maxInFlight}`,
    ];
  }
}
