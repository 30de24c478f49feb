import { listSegments } from "./segments.ts";
import { notNeeded } from "./segment_walk.ts";
import { type Damage, walkSegment } from "./segment_read.ts";

/**
 * Damage in the segments a snapshot at `snapshotSeq` wholly covers: startup does not read them,
 * but compaction does, so it is reported (as a warning, worded as `verify` words it) rather
 * than found by the next compaction. Reads only those segments, never the active one.
 */
export async function damageInCoveredSegments(
  dataDir: string,
  snapshotSeq: number,
): Promise<Damage[]> {
  const segments = await listSegments(dataDir);
  const found: Damage[] = [];
  const report = notNeeded((damage) => found.push(damage));
  for (const [index, segment] of segments.entries()) {
    const next = segments[index + 1];
    if (next === undefined || next.first - 1 > snapshotSeq) break;
    await walkSegment(segment, report, () => {}, { next, envelopeOnly: true });
  }
  return found;
}
