/** What lives where inside DATA_DIR, by name only: importing it pulls in no writer. */

/** The folder that holds the log segments. */
export const LOG_DIR = "log";
/** The folder that holds snapshots. */
export const SNAPSHOT_DIR = "snapshots";
/** The lock file a running server holds. */
export const LOCK_FILE = "customer-api.lock";
/** The file that holds the development-mode secret. */
export const DEV_SECRET_FILE = "dev-secret";

/** The file name of a segment starting at `first`. */
export function segmentName(first: number, compacted = false): string {
  return `${String(first).padStart(20, "0")}${compacted ? ".compacted" : ""}.jsonl`;
}

/** A segment's file name: its first seq and whether it was compacted. */
export const SEGMENT_NAME = /^([0-9]{20})(\.compacted)?\.jsonl$/;

/** The file name of the snapshot of the state after `seq`. */
export function snapshotName(seq: number): string {
  return `snapshot-${String(seq).padStart(20, "0")}.jsonl`;
}

/** A snapshot's file name: the seq it covers. */
export const SNAPSHOT_NAME = /^snapshot-([0-9]{20})\.jsonl$/;

/** Where startup keeps the torn tail it cut off a segment at `offset`, at `atMs`, for inspection. */
export function tornTailPath(segmentPath: string, offset: number, atMs: number): string {
  return `${segmentPath}.torn-${offset}-${atMs}`;
}

/** The file that holds webhook endpoints, their checkpoints and deliveries logs. */
export const WEBHOOKS_FILE = "webhooks.jsonl";
