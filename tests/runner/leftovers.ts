/**
 * Ending what a test run started, so that none of it outlives the run: a process group (the
 * tests, or PostgreSQL with its backends), and on Linux any process that names the run's directory.
 */
import process from "node:process";

/** Sends `signal` to every process of group `pgid`; false when the group is gone. */
export function signalGroup(pgid: number, signal: Deno.Signal | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends `signal` to the group, waits up to `graceMs` for all of it to end, then kills what is
 * left. A test run nested in the group gets its time to clean up after itself.
 */
export async function endGroup(pgid: number, signal: Deno.Signal, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, signal)) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && signalGroup(pgid, 0)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  signalGroup(pgid, "SIGKILL");
}

/** The ids of the processes whose command line or environment mentions `dir` (Linux only). */
export async function processesNaming(dir: string): Promise<number[]> {
  const found: number[] = [];
  try {
    for await (const entry of Deno.readDir("/proc")) {
      const pid = Number(entry.name);
      if (!Number.isInteger(pid) || pid === Deno.pid) continue;
      for (const file of ["cmdline", "environ"]) {
        const text = await Deno.readTextFile(`/proc/${pid}/${file}`).catch(() => "");
        if (text.includes(dir)) {
          found.push(pid);
          break;
        }
      }
    }
  } catch {
    // No /proc: nothing to look through.
  }
  return found;
}

/**
 * Kills every process that names `dir`, the last sweep before the directory is removed, and waits
 * (up to 5 s) until they are gone: a browser still running would write its profile back.
 */
export async function killProcessesNaming(dir: string): Promise<number[]> {
  const pids = await processesNaming(dir);
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Ended meanwhile.
    }
  }
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && (await processesNaming(dir)).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pids;
}
