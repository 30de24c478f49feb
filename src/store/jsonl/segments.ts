import { io } from "../../lib/io_error.ts";
import { syncDirectory, writeAll } from "../../lib/fs_util.ts";
import { LOG_DIR, SEGMENT_NAME, segmentName } from "./data_dir_layout.ts";
import { encodeSegmentHeader } from "./segment_header.ts";

/** One file of the log: events from `first` on, until the next segment's first. */
export interface Segment {
  path: string;
  name: string;
  first: number;
  /** A compacted segment had events of deleted customers removed, so its sequence has gaps. */
  compacted: boolean;
}

/** The segments of the log in DATA_DIR, oldest first. */
export async function listSegments(dataDir: string): Promise<Segment[]> {
  return withoutShadowed(await allSegments(dataDir));
}

/**
 * The originals a compacted copy shadows: a kill between writing the copy and removing the
 * original leaves both, and the copy is the segment (listSegments leaves the original out).
 */
export async function shadowedOriginals(dataDir: string): Promise<Segment[]> {
  const all = await allSegments(dataDir);
  const kept = new Set(withoutShadowed(all));
  return all.filter((segment) => !kept.has(segment));
}

/** Every segment file, oldest first, a compacted copy before its original. */
async function allSegments(dataDir: string): Promise<Segment[]> {
  const dir = `${dataDir}/${LOG_DIR}`;
  const segments: Segment[] = [];
  await io("listing", dir, async () => {
    for await (const entry of Deno.readDir(dir)) {
      const match = SEGMENT_NAME.exec(entry.name);
      if (!entry.isFile || match === null) continue;
      segments.push({
        path: `${dir}/${entry.name}`,
        name: entry.name,
        first: Number(match[1]),
        compacted: match[2] !== undefined,
      });
    }
  });
  return segments.sort((a, b) => a.first - b.first || Number(b.compacted) - Number(a.compacted));
}

/** The segments with each original that has a compacted copy left out. */
function withoutShadowed(segments: Segment[]): Segment[] {
  return segments.filter((segment, i) => i === 0 || segments[i - 1].first !== segment.first);
}

/** A new, synced segment whose first event will be `first`, holding only its header. */
export async function createSegment(logDir: string, first: number, unsyncedMaxBytes: number) {
  const path = `${logDir}/${segmentName(first)}`;
  const header = encodeSegmentHeader(unsyncedMaxBytes);
  const file = await io(
    "opening",
    path,
    () => Deno.open(path, { read: true, write: true, createNew: true }),
  );
  await io("writing", path, () => writeAll(file, header));
  // Not the store's injected sync: that one is the group commit's, which tests count and gate.
  await io("syncing", path, () => file.syncData());
  await syncDirectory(logDir);
  return { file, path, headerLength: header.length };
}
