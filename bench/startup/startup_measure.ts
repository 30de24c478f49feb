/** One start of the real server: time to "ready", what it replayed, and its memory. */
import { ServerExitedError, spawnServer } from "../support/server_process.ts";

const SETTLE_MS = 1000;

/** One server start: seconds to "ready", its "replay done" fields and its memory. */
export interface StartupMeasurement {
  seconds: number;
  replay: { events: number; customers: number; ms: number; snapshot_records: number };
  /** RSS read as soon as "ready" arrived (the field keeps its name for the report). */
  rssListening: number;
  /** RSS one second later (after the background compaction, when one runs). */
  rssSettled: number;
  /** VmHWM: the peak RSS so far. */
  peak: number;
}

/** How one start is run and ended. */
export interface StartOptions {
  /** The signal that ends the server once measured. */
  signal: Deno.Signal;
  /** Flags for `deno run`, e.g. --cpu-prof. */
  denoFlags?: string[];
  /** Wait for the background compaction and a second more before reading RSS again. */
  settle?: boolean;
  /** The checkout whose server runs (default this one). */
  root?: string;
}

/**
 * Starts the server, times it to "ready", reads its memory, then stops it.
 * On a shared machine something else may signal the child; such a start is retried.
 */
export async function measureStartup(
  dataDir: string,
  options: StartOptions,
): Promise<StartupMeasurement> {
  for (let attempt = 1;; attempt++) {
    try {
      return await measureOnce(dataDir, options);
    } catch (error) {
      if (!(error instanceof ServerExitedError) || error.signal === null || attempt === 3) {
        throw error;
      }
      console.log(`startup: the server was killed by ${error.signal} from outside; retrying`);
    }
  }
}

async function measureOnce(dataDir: string, options: StartOptions): Promise<StartupMeasurement> {
  const server = spawnServer(dataDir, options.denoFlags, {}, options.root);
  try {
    // The listener opens before the replay; "ready" is when the server answers the API.
    const replay = (await server.waitFor("replay done")).fields as StartupMeasurement["replay"];
    const listening = await server.waitFor("ready");
    const rssListening = (await server.memory()).rss;
    if (options.settle ?? true) {
      // A startup that replayed events compacts in the background right away; let it finish.
      if (replay.events > 0) await server.waitFor("compaction done");
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
    const { rss: rssSettled, peak } = await server.memory();
    return {
      seconds: (listening.at - server.spawnedAt) / 1000,
      replay,
      rssListening,
      rssSettled,
      peak,
    };
  } finally {
    await server.stop(options.signal);
  }
}
