import { LOG_DIR } from "../store/jsonl/data_dir_layout.ts";
import { listSegments } from "../store/jsonl/segments.ts";

/** DATA_DIR is missing or holds no event log, so an ops task has nothing to work on. */
export class NoEventLogError extends Error {
  constructor(dataDir: string, reason: string) {
    super(`DATA_DIR "${dataDir}" ${reason}; set DATA_DIR to the server's data directory`);
    this.name = "NoEventLogError";
  }
}

/** Checks that DATA_DIR holds a log segment, so `verify` and `compact` never act on a typo. */
export async function requireEventLog(dataDir: string): Promise<void> {
  const kind = async (path: string) => {
    try {
      return (await Deno.stat(path)).isDirectory ? "directory" : "file";
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return "missing";
      throw error;
    }
  };
  const found = await kind(dataDir);
  if (found !== "directory") {
    throw new NoEventLogError(dataDir, found === "missing" ? "does not exist" : "is a file");
  }
  if (await kind(`${dataDir}/${LOG_DIR}`) !== "directory") {
    throw new NoEventLogError(dataDir, `holds no event log (no "${LOG_DIR}" folder)`);
  }
  if ((await listSegments(dataDir)).length === 0) {
    throw new NoEventLogError(dataDir, `holds no event log (no segment in "${LOG_DIR}")`);
  }
}
