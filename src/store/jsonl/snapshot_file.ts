import { io } from "../../lib/io_error.ts";
import { CorruptRecordError } from "./checked_line.ts";
import { LineBuffer } from "./line_arena.ts";
import { bodyText, splitLineText, type SplitText } from "./line_split.ts";
import { syncDirectory, writeAll, writeAtomically } from "../../lib/fs_util.ts";
import { readLines } from "./line_reader.ts";

import { SNAPSHOT_DIR, SNAPSHOT_NAME, snapshotName } from "./data_dir_layout.ts";

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
    await io("listing", dir, async () => {
      for await (const entry of Deno.readDir(dir)) {
        const match = SNAPSHOT_NAME.exec(entry.name);
        if (entry.isFile && match !== null) {
          found.push({ path: `${dir}/${entry.name}`, seq: Number(match[1]) });
        }
      }
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((a, b) => b.seq - a.seq);
}

/** Writes the state after `seq` atomically: header, one checked line per record, counted footer. */
export async function writeSnapshot(
  dataDir: string,
  seq: number,
  records: Iterable<string>,
): Promise<SnapshotInfo> {
  const dir = `${dataDir}/${SNAPSHOT_DIR}`;
  await io("opening", dir, () => Deno.mkdir(dir, { recursive: true }));
  const name = snapshotName(seq);
  await writeAtomically(dir, name, async (file) => {
    const lines = new LineBuffer();
    lines.add(JSON.stringify({ kind: "snapshot", format: 1, seq }));
    let count = 0;
    for (const record of records) {
      lines.add(record);
      count++;
      if (count % BATCH_LINES === 0) {
        await writeAll(file, lines.bytes);
        lines.clear();
      }
    }
    lines.add(JSON.stringify({ kind: "end", records: count }));
    await writeAll(file, lines.bytes);
  });
  return { path: `${dir}/${name}`, seq };
}

/**
 * Reads a whole snapshot, handing each record over as JSON text (split before `data` as log lines
 * are; joinRecord rejoins them); throws CorruptSnapshotError on any damage.
 */
export async function readSnapshot(
  info: SnapshotInfo,
  onRecord: (record: string, data: string | undefined) => void,
): Promise<void> {
  const file = await io("opening", info.path, () => Deno.open(info.path, { read: true }));
  let count = 0;
  let atHeader = true;
  // Each line is handed over when the next arrives, so the last one is held back as the footer.
  let held: SplitText | undefined;
  try {
    const { rest } = await io(
      "reading",
      info.path,
      () =>
        readLines(
          file,
          (line, _offset, lineNumber) => {
            let record: SplitText;
            try {
              record = splitLineText(line, "data", held) ?? { head: bodyText(line), member: "" };
            } catch (error) {
              if (error instanceof CorruptRecordError) {
                throw new CorruptSnapshotError(info.path, `line ${lineNumber}: ${error.message}`);
              }
              throw error;
            }
            if (atHeader) {
              const header = parseRecord(info, record.head);
              if (header.kind !== "snapshot" || header.seq !== info.seq) {
                throw new CorruptSnapshotError(
                  info.path,
                  "the header does not match the file name",
                );
              }
              atHeader = false;
              return;
            }
            if (held !== undefined) {
              count++;
              onRecord(held.head, held.member === "" ? undefined : held.member);
            }
            held = record;
          },
          undefined,
          { decode: false },
        ),
    );
    const end = held === undefined ? undefined : parseRecord(info, held.head);
    if (rest.length > 0 || end?.kind !== "end") {
      throw new CorruptSnapshotError(info.path, "it is incomplete (no end marker)");
    }
    if (end.records !== count) {
      throw new CorruptSnapshotError(
        info.path,
        `it has ${count} records, the end says ${end.records}`,
      );
    }
  } finally {
    file.close();
  }
}

/** A record as records() yielded it, from what readSnapshot handed over. */
export function joinRecord(record: string, data: string | undefined): string {
  return data === undefined ? record : `${record.slice(0, -1)},"data":${data}}`;
}

function parseRecord(info: SnapshotInfo, body: string): Record<string, unknown> {
  try {
    return JSON.parse(body);
  } catch {
    throw new CorruptSnapshotError(info.path, "a header or end line is not JSON");
  }
}

/** Removes a snapshot file durably. */
export async function removeSnapshot(info: SnapshotInfo): Promise<void> {
  await io("removing", info.path, () => Deno.remove(info.path));
  await syncDirectory(info.path.slice(0, info.path.lastIndexOf("/")));
}
