import { CorruptRecordError, decodeEvent } from "./event_codec.ts";
import { readLines } from "./line_reader.ts";
import { listSegments } from "./segments.ts";
import { CorruptSnapshotError, listSnapshots, readSnapshot } from "./snapshot_file.ts";

/** One problem found in DATA_DIR; `fatal` ones make the server refuse to start. */
export interface Finding {
  file: string;
  line?: number;
  offset?: number;
  problem: string;
  fatal: boolean;
}

/** Checks every segment and snapshot without changing anything, and reports every problem. */
export async function verifyDataDir(dataDir: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  const snapshots = await listSnapshots(dataDir);
  let goodSnapshot = false;
  for (const snapshot of snapshots) {
    try {
      await readSnapshot(snapshot, () => {});
      goodSnapshot = true;
    } catch (error) {
      if (!(error instanceof CorruptSnapshotError)) throw error;
      findings.push({ file: snapshot.path, problem: error.message, fatal: false });
    }
  }
  const segments = await listSegments(dataDir);
  if (segments.length > 0 && segments[0].first > 1 && !goodSnapshot) {
    findings.push({
      file: segments[0].path,
      problem: "the log's beginning is missing and no valid snapshot covers it",
      fatal: true,
    });
  }
  for (const [index, segment] of segments.entries()) {
    const isLast = index === segments.length - 1;
    const next = segments[index + 1];
    let expected = segment.first;
    let lastValidLine = 0;
    const file = await Deno.open(segment.path, { read: true });
    const damaged: Finding[] = [];
    try {
      const { end, rest, lines } = await readLines(file, (line, offset, lineNumber) => {
        try {
          const event = decodeEvent(line);
          // After a damaged line the sequence picks up wherever the next good line is.
          const resync = damaged.length > 0 && damaged.at(-1)!.line === lineNumber - 1;
          const inOrder = segment.compacted || resync
            ? event.seq >= expected && (next === undefined || event.seq < next.first)
            : event.seq === expected;
          if (!inOrder) {
            throw new CorruptRecordError(`sequence ${event.seq} where ${expected} was expected`);
          }
          expected = event.seq + 1;
          lastValidLine = lineNumber;
        } catch (error) {
          if (!(error instanceof CorruptRecordError)) throw error;
          damaged.push({
            file: segment.path,
            line: lineNumber,
            offset,
            problem: error.message,
            fatal: true,
          });
        }
      });
      if (rest.length > 0) {
        damaged.push({
          file: segment.path,
          line: lines + 1,
          offset: end,
          problem: "Record has no newline",
          fatal: true,
        });
      }
    } finally {
      file.close();
    }
    // A damaged last record of the last segment is what a crash leaves: startup cuts it off.
    const tail = damaged.at(-1);
    if (isLast && tail !== undefined && damaged.length === 1 && tail.line! > lastValidLine) {
      tail.fatal = false;
      tail.problem += " (a torn last record: startup cuts it off)";
    }
    findings.push(...damaged);
  }
  return findings;
}
