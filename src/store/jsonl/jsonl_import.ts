/** `deno task migrate` into a JSONL DATA_DIR: events in compacted segments, the head a snapshot. */
import type { ReplayedEvent, StoredEvent } from "../event_store.ts";
import { concat } from "../../lib/bytes.ts";
import { writeAll, writeAtomically } from "../../lib/fs_util.ts";
import { io } from "../../lib/io_error.ts";
import { LOG_DIR, segmentName } from "./data_dir_layout.ts";
import { encodeEvent } from "./event_codec.ts";
import { writeSnapshot } from "./snapshot_file.ts";

/** The target DATA_DIR holds files: migrate copies into a missing or empty directory only. */
export class DataDirNotEmptyError extends Error {
  constructor(dataDir: string, entries: string[]) {
    super(
      `DATA_DIR "${dataDir}" is not empty (it holds ${entries.slice(0, 3).join(", ")}${
        entries.length > 3 ? ", …" : ""
      }); migrate copies into a missing or empty directory only`,
    );
    this.name = "DataDirNotEmptyError";
  }
}

export interface JsonlImport {
  events: AsyncIterable<ReplayedEvent[]>;
  /** The first seq the log holds: the segment's name. */
  firstSeq: number;
  lastSeq: number;
  /** The state at lastSeq as snapshot records. */
  records: Iterable<string>;
}

/** Throws DataDirNotEmptyError unless `dataDir` is missing or an empty directory. */
export async function requireEmptyDataDir(dataDir: string): Promise<void> {
  const entries: string[] = [];
  try {
    for await (const entry of Deno.readDir(dataDir)) entries.push(entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (entries.length > 0) throw new DataDirNotEmptyError(dataDir, entries.sort());
}

/** Writes `log` into the empty `dataDir` in compacted segments; resolves with the count. */
export async function importLog(
  dataDir: string,
  log: JsonlImport,
  segmentMaxBytes = 64 * 1024 * 1024,
): Promise<number> {
  await requireEmptyDataDir(dataDir);
  const logDir = `${dataDir}/${LOG_DIR}`;
  await io("opening", logDir, () => Deno.mkdir(logDir, { recursive: true }));
  const events = eachEvent(log.events);
  let next = await events.next();
  let count = 0;
  while (!next.done) {
    // The first segment starts where the log does; the others at their first event.
    const first = count === 0 ? log.firstSeq : next.value.seq;
    await writeAtomically(logDir, segmentName(first, true), async (file) => {
      let batch: Uint8Array[] = [];
      for (let bytes = 0; !next.done && bytes < segmentMaxBytes; next = await events.next()) {
        const event = next.value;
        const line = encodeEvent(event as unknown as StoredEvent, event.dataJson ?? "null");
        batch.push(line);
        bytes += line.length;
        count++;
        if (batch.length === 1000) {
          await writeAll(file, concat(batch));
          batch = [];
        }
      }
      await writeAll(file, concat(batch));
    });
  }
  if (log.lastSeq > 0) await writeSnapshot(dataDir, log.lastSeq, log.records);
  return count;
}

async function* eachEvent(pages: AsyncIterable<ReplayedEvent[]>): AsyncGenerator<ReplayedEvent> {
  for await (const page of pages) yield* page;
}
