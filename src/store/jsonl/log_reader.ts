import { CorruptRecordError, decodeReplayed } from "./event_codec.ts";
import type { ReplayedEvent } from "../event_store.ts";
import { CorruptLogError, LogTruncatedError } from "../store_errors.ts";
import { readLines } from "./line_reader.ts";
import { isCommitLine, looksLikeHeader } from "./segment_header.ts";
import { io } from "../../lib/io_error.ts";
import { listSegments, type Segment } from "./segments.ts";

/** How far the writer's bytes are durable, captured in one synchronous step. */
export interface DurablePosition {
  lastSeq: number;
  activeFirst: number;
  /** Its length up to the last sync: bytes after it may be a batch still being written. */
  durableLength: number;
  activePath?: string;
}

/** Where a read stopped, so paging on from it does not read the segment again. */
interface Cursor {
  path: string;
  /** The file's inode: a compacted segment rewritten since is another file, read from its start. */
  ino: number | null;
  offset: number;
  seq: number;
}

/** Remembered read positions: several readers page at once, each resuming where it stopped. */
const CURSORS = 64;

/**
 * Reads durable events from the live log: the active segment only up to the durable length, so a
 * half-written batch is never seen; a segment compaction replaced meanwhile is looked up again.
 */
export class LogReader {
  #dataDir: string;
  #cursors: Cursor[] = [];

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** Up to `limit` events after `afterSeq` that `at` shows durable. */
  async read(at: DurablePosition, afterSeq: number, limit: number): Promise<ReplayedEvent[]> {
    const events: ReplayedEvent[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const from = events.at(-1)?.seq ?? afterSeq;
      try {
        await this.#readSegments(at, from, limit, events);
        return events;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    throw new Error("The log kept changing while it was read; try again");
  }

  async #readSegments(
    at: DurablePosition,
    afterSeq: number,
    limit: number,
    events: ReplayedEvent[],
  ): Promise<void> {
    if (afterSeq >= at.lastSeq || events.length >= limit) return;
    // At the head only the active segment is read, sparing a directory listing per read
    // (`bench --only=webhooks` measures it); if compaction replaced it, a listing finds its copy.
    const path = at.activePath;
    if (
      afterSeq + 1 >= at.activeFirst && path !== undefined && !path.endsWith(".compacted.jsonl")
    ) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      const active = { path, name, first: at.activeFirst, compacted: false };
      try {
        await this.#readSegment(active, at, afterSeq, limit, events);
        return;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    const segments = (await listSegments(this.#dataDir)).filter((s) => s.first <= at.lastSeq);
    const index = segments.findLastIndex((segment) => segment.first <= afterSeq + 1);
    // Segments are only dropped from the front, once two snapshots cover them.
    if (index === -1) throw new LogTruncatedError(afterSeq, segments[0]?.first ?? at.lastSeq + 1);
    for (const segment of segments.slice(index)) {
      await this.#readSegment(segment, at, afterSeq, limit, events);
      if (events.length >= limit || (events.at(-1)?.seq ?? 0) >= at.lastSeq) return;
    }
  }

  async #readSegment(
    segment: Segment,
    at: DurablePosition,
    afterSeq: number,
    limit: number,
    events: ReplayedEvent[],
  ): Promise<void> {
    const active = !segment.compacted && segment.first === at.activeFirst;
    const file = await io("opening", segment.path, () => Deno.open(segment.path, { read: true }));
    try {
      // A compacted segment may be replaced by a rewrite (a new inode): offsets hold in one file.
      const ino = segment.compacted ? (await file.stat()).ino : null;
      const start = this.#resumeAt(segment.path, ino, afterSeq)?.offset ?? 0;
      let end: Cursor | undefined;
      await io("reading", segment.path, () =>
        readLines(
          file,
          (line, offset, lineNumber, text) => {
            if ((offset === 0 && looksLikeHeader(line)) || isCommitLine(line)) return;
            let event: ReplayedEvent;
            try {
              // Events read for the feed live briefly: their data may share the chunk's text.
              event = decodeReplayed(line, text, "slice");
            } catch (error) {
              if (!(error instanceof CorruptRecordError)) throw error;
              const at = start === 0 ? lineNumber : 0;
              throw new CorruptLogError(segment.path, at, offset, error.message);
            }
            if (event.seq > at.lastSeq) return false;
            if (event.seq <= afterSeq) return;
            events.push(event);
            end = { path: segment.path, ino, offset: offset + line.length + 1, seq: event.seq };
            if (events.length >= limit) return false;
          },
          undefined,
          { start, end: active ? at.durableLength : undefined },
        ));
      if (end !== undefined) this.#remember(end);
    } finally {
      file.close();
    }
  }

  #resumeAt(path: string, ino: number | null, afterSeq: number): Cursor | undefined {
    let best: Cursor | undefined;
    for (const cursor of this.#cursors) {
      if (cursor.path !== path || cursor.ino !== ino || cursor.seq > afterSeq) continue;
      if (best === undefined || cursor.seq > best.seq) best = cursor;
    }
    return best;
  }

  /** Keeps where a read stopped, as the newest; the oldest goes beyond CURSORS. */
  #remember(end: Cursor): void {
    const same = this.#cursors.findIndex((c) => c.path === end.path && c.seq === end.seq);
    if (same !== -1) this.#cursors.splice(same, 1);
    else if (this.#cursors.length >= CURSORS) this.#cursors.shift();
    this.#cursors.push(end);
  }
}
