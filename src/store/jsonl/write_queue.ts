/** The JSONL writer's queue: writes and segment rolls in order, and how a batch is cut from it. */
import type { StoredEvent } from "../event_store.ts";
import type { TracedAppend } from "../commit_trace.ts";

/** A queued write of events (its bytes ready) or a roll to a new segment. */
export type Operation =
  | {
    kind: "write";
    bytes: Uint8Array;
    events: StoredEvent[];
    /** What the commit trace gave it when it was queued (tracing on). */
    token: unknown;
    resolve(events: StoredEvent[]): void;
    reject(error: unknown): void;
  }
  | { kind: "roll"; resolve(closedSeq: number): void; reject(error: unknown): void };

export type Write = Extract<Operation, { kind: "write" }>;

/** The writes of the next batch: up to a roll, and at most `unsyncedMaxBytes` (one at least). */
export function batchLength(queue: readonly Operation[], unsyncedMaxBytes: number): number {
  let bytes = 0;
  for (const [i, op] of queue.entries()) {
    if (op.kind === "roll") return i;
    bytes += op.bytes.length;
    if (bytes > unsyncedMaxBytes && i > 0) return i;
  }
  return queue.length;
}

/** A write's outcome for its trace: durable, or refused with `error`. */
export function traced(write: Write, error?: Error): TracedAppend {
  const lastSeq = error === undefined ? write.events.at(-1)!.seq : undefined;
  return { token: write.token, events: write.events.length, lastSeq, error };
}
