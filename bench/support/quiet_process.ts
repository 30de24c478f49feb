/** Waiting for a process to go quiet. */
import { cpuSeconds } from "./child_processes.ts";

/**
 * Resolves once the process used less than `share` of a core over one `intervalMs` (or after
 * `timeoutMs`): a server just started still builds indexes and tidies its heap in the background,
 * which would otherwise be timed as part of the first thing measured. That work yields between
 * small batches and may take only a fifth of a core on a loaded machine: the bar is low.
 */
export async function waitForQuiet(
  pid: number,
  { share = 0.05, intervalMs = 1000, timeoutMs = 60_000 } = {},
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let before = await cpuSeconds(pid);
  if (Number.isNaN(before)) return; // no /proc: nothing to wait on
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const now = await cpuSeconds(pid);
    if (now - before < share * intervalMs / 1000) return;
    before = now;
  }
}
