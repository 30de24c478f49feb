import { listSegments } from "./segments.ts";
import { walkSegments } from "./segment_walk.ts";
import type { Damage } from "./segment_read.ts";
import { CorruptSnapshotError, listSnapshots, readSnapshot } from "./snapshot_file.ts";

/** One problem found in DATA_DIR; `fatal` ones make the server refuse to start. */
export interface Finding {
  file: string;
  line?: number;
  offset?: number;
  problem: string;
  fatal: boolean;
}

/** Checks every segment and snapshot without changing anything, judging as startup does. */
export async function verifyDataDir(dataDir: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  // Startup loads the newest snapshot that reads completely; older ones are its fallbacks.
  let snapshotSeq: number | undefined;
  for (const snapshot of await listSnapshots(dataDir)) {
    try {
      await readSnapshot(snapshot, () => {});
      snapshotSeq ??= snapshot.seq;
    } catch (error) {
      if (!(error instanceof CorruptSnapshotError)) throw error;
      findings.push({ file: snapshot.path, problem: error.message, fatal: false });
    }
  }
  await walkSegments(await listSegments(dataDir), {
    afterSeq: snapshotSeq ?? 0,
    onDamage: (damage: Damage) => findings.push(damage),
  });
  return findings;
}
