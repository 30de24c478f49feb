import { io } from "../../lib/io_error.ts";
import { LOG_DIR, SEGMENT_NAME } from "./data_dir_layout.ts";

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
  segments.sort((a, b) => a.first - b.first || Number(b.compacted) - Number(a.compacted));
  // A crash between writing a compacted copy and removing the original leaves both: use the copy.
  return segments.filter((segment, i) => i === 0 || segments[i - 1].first !== segment.first);
}
