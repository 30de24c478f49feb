/**
 * Where a write's time goes on PostgreSQL, over one measured window: CPU seconds of the servers
 * and of their PostgreSQL backends (from /proc/<pid>/stat), and the group-commit counters the
 * servers expose on /metrics (groups, events, round trips, pool and lock waits, commit time), and
 * how much of the machine's CPU stayed idle (from /proc/stat): near none, the setup is CPU-bound;
 * and the WAL the whole database server wrote (pg_stat_wal), per write.
 */
import { cpuSeconds, machineJiffies } from "../support/child_processes.ts";
import type { PgPool } from "../../src/store/postgres/pg_connection.ts";

/** The counters of one window, summed over the servers. */
export interface Profile {
  writes: number;
  serverCpu: number;
  backendCpu: number;
  counters: Record<string, number>;
  /** Bytes of WAL the database server wrote (NaN where pg_stat_wal is missing, before 14). */
  walBytes: number;
  /** Jiffies of every core over the window: all of them, and those idle (or waiting for I/O). */
  machine: { total: number; idle: number };
}

const COUNTERS = [
  "groups",
  "group_appends",
  "group_events",
  "round_trips",
  "pool_wait_seconds",
  "commit_seconds",
  "lock_wait_seconds",
];

/** Bytes of WAL the server has written since its statistics were reset. */
export async function walBytes(admin: PgPool): Promise<number> {
  try {
    const { rows } = await admin.query<{ bytes: number }>(
      "SELECT wal_bytes::float8 AS bytes FROM pg_stat_wal",
    );
    return rows[0].bytes;
  } catch {
    return NaN;
  }
}

/** A snapshot of the figures that a later snapshot is subtracted from. */
async function snapshot(admin: PgPool, application: string, pids: number[], urls: string[]) {
  const { rows } = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
    [application],
  );
  const backends = new Map<number, number>();
  for (const { pid } of rows) backends.set(pid, await cpuSeconds(pid));
  let serverCpu = 0;
  for (const pid of pids) serverCpu += await cpuSeconds(pid);
  const counters: Record<string, number> = Object.fromEntries(COUNTERS.map((name) => [name, 0]));
  for (const url of urls) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const name of COUNTERS) {
      const line = new RegExp(`^pg_commit_${name}_total (\\S+)$`, "m").exec(text);
      counters[name] += Number(line?.[1] ?? NaN);
    }
  }
  const wal = await walBytes(admin);
  return { backends, serverCpu, counters, wal, machine: await machineJiffies() };
}

/** Starts a window; the function returned ends it, given the writes answered meanwhile. */
export async function startProfile(
  admin: PgPool,
  application: string,
  pids: number[],
  urls: string[],
): Promise<(writes: number) => Promise<Profile>> {
  const before = await snapshot(admin, application, pids, urls);
  return async (writes) => {
    const after = await snapshot(admin, application, pids, urls);
    let backendCpu = 0;
    for (const [pid, cpu] of after.backends) {
      const start = before.backends.get(pid) ?? 0;
      if (Number.isFinite(cpu)) backendCpu += cpu - start;
    }
    const counters = Object.fromEntries(
      COUNTERS.map((name) => [name, after.counters[name] - before.counters[name]]),
    );
    const machine = {
      total: after.machine.total - before.machine.total,
      idle: after.machine.idle - before.machine.idle,
    };
    return {
      writes,
      serverCpu: after.serverCpu - before.serverCpu,
      backendCpu,
      counters,
      walBytes: after.wal - before.wal,
      machine,
    };
  };
}

/** The profile's lines, per write and per group. */
export function describeProfile(profile: Profile): string[] {
  const { writes, counters: c } = profile;
  const us = (seconds: number, per: number) => `${Math.round((seconds / per) * 1e6)} µs`;
  const ms = (seconds: number, per: number) => `${((seconds / per) * 1000).toFixed(2)} ms`;
  return [
    `CPU per write: service ${us(profile.serverCpu, writes)}, ` +
    `PostgreSQL backends ${us(profile.backendCpu, writes)}; ` +
    (Number.isFinite(profile.walBytes)
      ? `WAL ${Math.round(profile.walBytes / writes)} bytes per write; `
      : "") +
    "machine CPU idle " +
    `${Math.round((profile.machine.idle / profile.machine.total) * 100)} %`,
    `groups: ${c.groups}, ${(c.group_events / c.groups).toFixed(1)} events and ` +
    `${(c.round_trips / c.groups).toFixed(2)} round trips per group`,
    `per group: pool wait ${ms(c.pool_wait_seconds, c.groups)}, ` +
    `send to answer ${ms(c.commit_seconds, c.groups)} ` +
    `(of which waiting for the log-head lock ${ms(c.lock_wait_seconds, c.groups)})`,
  ];
}

/** The profiles of several windows as one. */
export function sumProfiles(profiles: Profile[]): Profile {
  const total: Profile = {
    writes: 0,
    serverCpu: 0,
    backendCpu: 0,
    counters: {},
    walBytes: 0,
    machine: { total: 0, idle: 0 },
  };
  for (const profile of profiles) {
    total.writes += profile.writes;
    total.machine.total += profile.machine.total;
    total.machine.idle += profile.machine.idle;
    total.serverCpu += profile.serverCpu;
    total.backendCpu += profile.backendCpu;
    total.walBytes += profile.walBytes;
    for (const [name, value] of Object.entries(profile.counters)) {
      total.counters[name] = (total.counters[name] ?? 0) + value;
    }
  }
  return total;
}
