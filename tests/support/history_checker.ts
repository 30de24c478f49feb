/**
 * Checks a history of concurrent writes (history_ops.ts) against the whole feed and the final state
 * every replica serves, in the spirit of Jepsen's checkers: what clients were told must be what the
 * log holds. Pure: it reads nothing but its arguments.
 */
import { isDeepStrictEqual } from "node:util";
import {
  acknowledged,
  type CustomerBody,
  type FeedEvent,
  type Op,
  refused,
} from "./history_ops.ts";

/** What the check found: counts of what it checked, and each violation in words. */
export interface HistoryReport {
  counts: Record<string, number>;
  anomalies: string[];
}

const MUTABLE = ["name", "email", "phone", "address", "metadata"] as const;
const EVENT_TYPE = {
  create: "customer.created",
  put: "customer.updated",
  patch: "customer.updated",
  delete: "customer.deleted",
} as const;

/**
 * Checks `ops` against `feed` (every event from seq `feedStart` on, in seq order) and each
 * replica's final customers. Writes before `feedStart`, or erased with their deleted customer,
 * are counted as unverified.
 */
export function checkHistory(
  ops: readonly Op[],
  feed: readonly FeedEvent[],
  finals: readonly ReadonlyMap<string, CustomerBody | null>[],
  feedStart = 1,
): HistoryReport {
  const anomalies: string[] = [];
  const counts: Record<string, number> = {
    ops: ops.length,
    acknowledged: 0,
    refused: 0,
    unanswered: 0,
    unansweredApplied: 0,
    events: feed.length,
    ifMatch: 0,
    erasedUnverified: 0,
    beforeFeedUnverified: 0,
    customers: 0,
  };
  const problem = (text: string) => anomalies.length < 200 && anomalies.push(text);

  for (let i = 1; i < feed.length; i++) {
    if (feed[i].seq <= feed[i - 1].seq) {
      problem(`feed seq ${feed[i].seq} follows ${feed[i - 1].seq}`);
    }
  }
  const streams = customerStreams(feed, feedStart, problem);
  counts.customers = streams.size;
  const byRequest = new Map<string, FeedEvent[]>();
  for (const event of feed) {
    byRequest.set(event.request_id, [...byRequest.get(event.request_id) ?? [], event]);
  }

  const applied = new Map<Op, FeedEvent>();
  for (const op of ops) {
    if (op.ifMatch !== undefined) counts.ifMatch++;
    const events = byRequest.get(op.id) ?? [];
    const label = `${op.kind} ${op.id}${
      op.ifMatch === undefined ? "" : ` (If-Match ${op.ifMatch})`
    }`;
    if (events.length > 1) problem(`${label} applied ${events.length} times`);
    const event = events[0];
    if (acknowledged(op)) counts.acknowledged++;
    else if (refused(op)) counts.refused++;
    else counts.unanswered++;
    if (event === undefined) {
      if (!acknowledged(op)) continue;
      if (op.logSeq !== undefined && op.logSeq < feedStart) {
        counts.beforeFeedUnverified++;
        continue;
      }
      const last = streams.get(op.customer ?? op.answer?.id ?? "")?.events.at(-1);
      if (last?.type === "customer.deleted" && op.logSeq !== undefined && op.logSeq < last.seq) {
        counts.erasedUnverified++; // Erasure removed it with the customer's earlier events.
      } else problem(`${label} was answered ${op.status} but is not in the feed`);
      continue;
    }
    applied.set(op, event);
    if (refused(op)) problem(`${label} was answered ${op.status} but applied at seq ${event.seq}`);
    if (!acknowledged(op) && !refused(op)) counts.unansweredApplied++;
    checkEvent(op, event, streams.get(event.customer_id)!, label, problem);
  }

  checkUniqueAnswers(ops, problem);
  checkRealTimeOrder(applied, problem);
  finals.forEach((final, replica) => {
    for (const [id, stream] of streams) {
      const last = stream.events.at(-1)!;
      const served = final.get(id);
      if (served === undefined) problem(`replica ${replica} did not say what ${id} is`);
      else if (!isDeepStrictEqual(served, last.data)) {
        problem(
          `replica ${replica} serves ${id} at version ${served?.version ?? "deleted"}, ` +
            `the feed ends at version ${last.version} (${last.type})`,
        );
      }
    }
  });
  return { counts, anomalies };
}

/** A customer's events in feed order, and by version. */
interface Stream {
  events: FeedEvent[];
  byVersion: Map<number, FeedEvent>;
}

function customerStreams(
  feed: readonly FeedEvent[],
  feedStart: number,
  problem: (text: string) => void,
) {
  const streams = new Map<string, Stream>();
  for (const event of feed) {
    let stream = streams.get(event.customer_id);
    if (stream === undefined) {
      stream = { events: [], byVersion: new Map() };
      streams.set(event.customer_id, stream);
    } else {
      const before = stream.events.at(-1)!;
      if (before.type === "customer.deleted") {
        problem(`${event.customer_id} changed after its delete`);
      }
      if (event.version <= before.version) {
        problem(`${event.customer_id} goes from version ${before.version} to ${event.version}`);
      }
    }
    stream.events.push(event);
    stream.byVersion.set(event.version, event);
  }
  for (const [id, { events }] of streams) {
    // A deleted customer's events the follower missed before erasure leave gaps; no other may.
    if (events.at(-1)!.type === "customer.deleted") continue;
    const first = events[0];
    if (feedStart === 1 && (first.version !== 1 || first.type !== "customer.created")) {
      problem(`${id} starts at version ${first.version} (${first.type})`);
    }
    for (let i = 1; i < events.length; i++) {
      if (events[i].version !== events[i - 1].version + 1) {
        problem(`${id} goes from version ${events[i - 1].version} to ${events[i].version}`);
      }
    }
  }
  return streams;
}

/** The event an op caused is the op's change, on the version it named, as it was answered. */
function checkEvent(
  op: Op,
  event: FeedEvent,
  stream: Stream,
  label: string,
  problem: (text: string) => void,
) {
  const id = op.customer ?? op.answer?.id;
  if (id !== undefined && id !== event.customer_id) {
    problem(`${label} changed ${event.customer_id}`);
  }
  if (event.type !== EVENT_TYPE[op.kind]) problem(`${label} caused ${event.type}`);
  if (op.ifMatch !== undefined && event.version !== op.ifMatch + 1) {
    problem(`${label} was applied at version ${event.version}`);
  }
  if (acknowledged(op)) {
    if (op.logSeq !== event.seq) {
      problem(`${label} answered Log-Seq ${op.logSeq}, its event is ${event.seq}`);
    }
    if (op.kind !== "delete") {
      if (op.version !== event.version) {
        problem(`${label} answered version ${op.version}, its event is version ${event.version}`);
      }
      if (!isDeepStrictEqual(op.answer, event.data)) {
        problem(`${label} answered a body other than the feed's at version ${event.version}`);
      }
    }
  }
  if (event.data === null) return;
  const before = stream.byVersion.get(event.version - 1)?.data ?? undefined;
  let want: Record<string, unknown> | undefined;
  if (op.kind === "create" || op.kind === "put") want = mutable(op.body ?? {});
  else if (op.kind === "patch" && before !== undefined) {
    want = mutable(mergePatch(mutable(before), op.body ?? {}) as Record<string, unknown>);
  }
  if (want !== undefined && !isDeepStrictEqual(mutable(event.data), want)) {
    problem(
      `${label} at version ${event.version} holds ${JSON.stringify(mutable(event.data))}, ` +
        `not its change of version ${event.version - 1}: ${JSON.stringify(want)}`,
    );
  }
  if (before !== undefined && before.created_at !== event.data.created_at) {
    problem(`${label} changed created_at`);
  }
}

/** No two acknowledged writes answer the same version of one customer, or the same Log-Seq. */
function checkUniqueAnswers(ops: readonly Op[], problem: (text: string) => void) {
  const versions = new Map<string, string>();
  const seqs = new Map<number, string>();
  for (const op of ops) {
    if (!acknowledged(op)) continue;
    const id = op.customer ?? op.answer?.id;
    if (op.version !== undefined && op.kind !== "delete") {
      const key = `${id} v${op.version}`;
      const other = versions.get(key);
      if (other !== undefined) problem(`${op.id} and ${other} both answered ${key}`);
      versions.set(key, op.id);
    }
    if (op.logSeq !== undefined) {
      const other = seqs.get(op.logSeq);
      if (other !== undefined) problem(`${op.id} and ${other} both answered Log-Seq ${op.logSeq}`);
      seqs.set(op.logSeq, op.id);
    }
  }
}

/**
 * A write acknowledged before another began comes first in the log: seqs follow real time (the
 * log is strictly serializable), across every customer and replica.
 */
function checkRealTimeOrder(applied: Map<Op, FeedEvent>, problem: (text: string) => void) {
  const done = [...applied].filter(([op]) => acknowledged(op)).sort(([a], [b]) => a.end! - b.end!);
  const ends = done.map(([op]) => op.end!);
  const maxSeq: number[] = [];
  const maxOp: Op[] = [];
  done.forEach(([op, event], i) => {
    const better = i === 0 || event.seq > maxSeq[i - 1];
    maxSeq.push(better ? event.seq : maxSeq[i - 1]);
    maxOp.push(better ? op : maxOp[i - 1]);
  });
  for (const [op, event] of applied) {
    // The ops answered before this one was sent: ends[0 .. n).
    let lo = 0, hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] < op.start) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0 && maxSeq[lo - 1] > event.seq) {
      problem(
        `${op.id} (seq ${event.seq}) was sent after ${maxOp[lo - 1].id} ` +
          `(seq ${maxSeq[lo - 1]}) was answered, yet comes before it`,
      );
    }
  }
}

/** The writable fields as the API stores them: absent optional fields are null or {}. */
function mutable(body: object): Record<string, unknown> {
  const fields = body as Record<string, unknown>;
  return {
    name: typeof fields.name === "string" ? fields.name.trim() : fields.name,
    email: fields.email,
    phone: fields.phone ?? null,
    address: fields.address ?? null,
    metadata: fields.metadata ?? {},
  } satisfies Record<(typeof MUTABLE)[number], unknown>;
}

/** RFC 7396, written here on its own so the check does not trust the server's version. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
