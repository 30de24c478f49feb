import { CorruptRecordError, decodeLine, encodeLine, splitLine } from "./checked_line.ts";
import { syncDirectory, writeAll, writeAtomically } from "../../lib/fs_util.ts";
import { concat } from "../../lib/bytes.ts";
import { readLines } from "./line_reader.ts";

/** The folder inside DATA_DIR that holds snapshots. */
export const SNAPSHOT_DIR = "snapshots";
const NAME = /^snapshot-([0-9]{20})\.jsonl$/;
const BATCH_LINES = 2000;

/** A snapshot file and the sequence number of the last event it includes. */
export interface SnapshotInfo {
  path: string;
  seq: number;
}

/** A snapshot that cannot be read completely; the message says where and why. */
export class CorruptSnapshotError extends Error {
  constructor(path: string, reason: string) {
    super(`The snapshot "${path}" is damaged: ${reason}`);
    this.name = "CorruptSnapshotError";
  }
}

/** The snapshots in DATA_DIR, newest first. */
export async function listSnapshots(dataDir: string): Promise<SnapshotInfo[]> {
  const dir = `${dataDir}/${SNAPSHOT_DIR}`;
  const found: SnapshotInfo[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const match = NAME.exec(entry.name);
      if (entry.isFile && match !== null) {
        found.push({ path: `${dir}/${entry.name}`, seq: Number(match[1]) });
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((a, b) => b.seq - a.seq);
}

/**
 * Writes a snapshot of the state after event `seq` atomically: a header line, one self-checking
 * line per record, and a footer with the count. Yields to the event loop between batches.
 */
export async function writeSnapshot(
  dataDir: string,
  seq: number,
  records: Iterable<object | string>,
): Promise<SnapshotInfo> {
  const dir = `${dataDir}/${SNAPSHOT_DIR}`;
  await Deno.mkdir(dir, { recursive: true });
  const name = `snapshot-${String(seq).padStart(20, "0")}.jsonl`;
  await writeAtomically(dir, name, async (file) => {
    await writeAll(file, encodeLine({ kind: "snapshot", format: 1, seq }));
    let count = 0;
    let batch: Uint8Array[] = [];
    for (const record of records) {
      batch.push(encodeLine(record));
      count++;
      if (batch.length === BATCH_LINES) {
        await writeAll(file, concat(batch));
        batch = [];
      }
    }
    batch.push(encodeLine({ kind: "end", records: count }));
    await writeAll(file, concat(batch));
  });
  return { path: `${dir}/${name}`, seq };
}

/**
 * Reads a whole snapshot into onRecord; throws CorruptSnapshotError on any damage. A record whose
 * last member is the object `data` comes without it, and `data` is that member's JSON text.
 */
export async function readSnapshot(
  info: SnapshotInfo,
  onRecord: (record: Record<string, unknown>, data: string | undefined) => void,
): Promise<void> {
  const file = await Deno.open(info.path, { read: true });
  let count = 0;
  let state: "header" | "body" | "ended" = "header";
  try {
    const { rest } = await readLines(file, (line, _offset, lineNumber, text) => {
      let record: Record<string, unknown>;
      let data: string | undefined;
      try {
        const split = splitLine(line, "data", text);
        record = split?.head ?? decodeLine(line, text);
        data = split?.member;
      } catch (error) {
        if (error instanceof CorruptRecordError) {
          throw new CorruptSnapshotError(info.path, `line ${lineNumber}: ${error.message}`);
        }
        throw error;
      }
      if (state === "header") {
        if (record.kind !== "snapshot" || record.seq !== info.seq) {
          throw new CorruptSnapshotError(info.path, "the header does not match the file name");
        }
        state = "body";
      } else if (state === "ended") {
        throw new CorruptSnapshotError(info.path, `line ${lineNumber} follows the end marker`);
      } else if (record.kind === "end") {
        if (record.records !== count) {
          throw new CorruptSnapshotError(
            info.path,
            `it has ${count} records, the end says ${record.records}`,
          );
        }
        state = "ended";
      } else {
        count++;
        onRecord(record, data);
      }
    });
    // The callback above moves `state` on; TypeScript cannot see that through the closure.
    if (rest.length > 0 || (state as string) !== "ended") {
      throw new CorruptSnapshotError(info.path, "it is incomplete (no end marker)");
    }
  } finally {
    file.close();
  }
}

/** Removes a snapshot file durably. */
export async function removeSnapshot(info: SnapshotInfo): Promise<void> {
  await Deno.remove(info.path);
  await syncDirectory(info.path.slice(0, info.path.lastIndexOf("/")));
}
