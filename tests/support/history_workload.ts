/**
 * Concurrent clients writing a few customers through whichever servers are up, so their writes
 * collide: creates, plain and If-Match PUT/PATCH/DELETE. Every request and answer (or the lack of
 * one) is recorded for history_checker.ts; then the feed and each server's final state are read.
 */
import type { CustomerBody, FeedEvent, Op } from "./history_ops.ts";

/** What a run writes, through which servers, for how long. */
export interface WorkloadOptions {
  /** Base URLs of the servers that are up now. */
  targets: () => string[];
  token: string;
  clients: number;
  customers: number;
  /** A performance.now() deadline. */
  until: number;
  /** The share of updates and deletes sent with If-Match (0–1). */
  ifMatchShare: number;
  /** Prefixes every request id, so runs on one database do not mix. */
  runId: string;
  timeoutMs?: number;
}

interface Slot {
  id: string;
  email: string;
  version: number;
}

const now = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the clients until the deadline; resolves with every op they sent, and the events a follower
 * read from the feed as they committed (erasure later removes a deleted customer's earlier events
 * from the feed, so the final read alone could not check the writes that preceded a delete).
 */
export async function runWorkload(
  options: WorkloadOptions,
): Promise<{ ops: Op[]; followed: FeedEvent[] }> {
  const ops: Op[] = [];
  const slots: (Slot | undefined)[] = new Array(options.customers).fill(undefined);
  const creating = new Set<number>();
  let counter = 0;
  const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

  const send = async (op: Op, method: string, path: string, extra: Record<string, string>) => {
    const targets = options.targets();
    if (targets.length === 0) return;
    ops.push(op);
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      "x-request-id": op.id,
      ...extra,
    };
    if (op.ifMatch !== undefined) headers["if-match"] = `"${op.ifMatch}"`;
    op.start = now();
    try {
      const res = await fetch(new URL(path, pick(targets)), {
        method,
        headers,
        body: op.body === undefined ? undefined : JSON.stringify(op.body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const text = await res.text();
      op.end = now();
      op.status = res.status;
      const logSeq = res.headers.get("log-seq");
      if (logSeq !== null) op.logSeq = Number(logSeq);
      if (res.ok && text !== "") {
        op.answer = JSON.parse(text) as CustomerBody;
        op.version = op.answer.version;
      }
    } catch (error) {
      op.end = undefined;
      op.error = String(error);
    }
  };

  const client = async (n: number) => {
    while (performance.now() < options.until) {
      const index = Math.floor(Math.random() * slots.length);
      const slot = slots[index];
      const id = `${options.runId}-${n}-${counter++}`;
      if (slot === undefined) {
        if (creating.has(index)) {
          await pause(5);
          continue;
        }
        creating.add(index);
        const email = `${id}@example.com`;
        const op: Op = {
          id,
          client: n,
          kind: "create",
          start: 0,
          body: { name: `C ${id}`, email, metadata: { op: id } },
        };
        await send(op, "POST", "/api/customers", { "content-type": "application/json" });
        if (op.status === 201) {
          op.customer = op.answer!.id;
          slots[index] = { id: op.answer!.id, email, version: 1 };
        }
        creating.delete(index);
        if (op.status === undefined) await pause(20);
        continue;
      }
      const roll = Math.random();
      const kind = roll < 0.55 ? "patch" : roll < 0.985 ? "put" : "delete";
      const op: Op = { id, client: n, kind, customer: slot.id, start: 0 };
      if (Math.random() < options.ifMatchShare) op.ifMatch = slot.version;
      const path = `/api/customers/${slot.id}`;
      if (kind === "patch") {
        op.body = { metadata: { op: id, [`c${n}`]: id } };
        if (Math.random() < 0.3) op.body.name = `P ${id}`;
        await send(op, "PATCH", path, { "content-type": "application/merge-patch+json" });
      } else if (kind === "put") {
        op.body = {
          name: `U ${id}`,
          email: slot.email,
          phone: Math.random() < 0.5 ? null : `+4420${String(counter).padStart(7, "0")}`,
          address: null,
          metadata: { op: id, [`c${n}`]: id },
        };
        await send(op, "PUT", path, { "content-type": "application/json" });
      } else await send(op, "DELETE", path, {});
      if (slots[index]?.id !== slot.id) continue;
      if (op.version !== undefined) slot.version = Math.max(slot.version, op.version);
      if ((kind === "delete" && op.status === 204) || op.status === 404) slots[index] = undefined;
      if (op.status === 412) await refresh(slot);
      if (op.status === undefined || op.status >= 500) await pause(20);
    }
  };

  /** Learns a customer's current version after a 412 (a read, not part of the history). */
  const refresh = async (slot: Slot) => {
    const targets = options.targets();
    if (targets.length === 0) return;
    try {
      const res = await fetch(new URL(`/api/customers/${slot.id}`, pick(targets)), {
        headers: { authorization: `Bearer ${options.token}` },
        signal: AbortSignal.timeout(2000),
      });
      const body = await res.json();
      if (res.ok) slot.version = Math.max(slot.version, body.version);
    } catch {
      // The next write learns it instead.
    }
  };

  const followed: FeedEvent[] = [];
  const follow = async () => {
    let after = 0;
    while (performance.now() < options.until) {
      const targets = options.targets();
      try {
        if (targets.length === 0) throw new Error("no server is up");
        const res = await fetch(
          new URL(`/api/events?after=${after}&limit=1000&wait=1`, pick(targets)),
          {
            headers: { authorization: `Bearer ${options.token}` },
            signal: AbortSignal.timeout(5000),
          },
        );
        const body = await res.json();
        if (!res.ok) throw new Error(`${res.status}`);
        followed.push(...body.data);
        after = Math.max(after, body.last_seq);
      } catch {
        await pause(50);
      }
    }
  };

  await Promise.all([
    ...Array.from({ length: options.clients }, (_, n) => client(n)),
    follow(),
  ]);
  return { ops, followed };
}

/**
 * The feed as checked: the events read at the end, and those the follower read that erasure has
 * removed since, by seq. An event read both ways must read the same.
 */
export function unionFeed(final: FeedEvent[], followed: FeedEvent[]): FeedEvent[] {
  const bySeq = new Map(final.map((event) => [event.seq, event]));
  for (const event of followed) {
    const kept = bySeq.get(event.seq);
    if (kept === undefined) bySeq.set(event.seq, event);
    else if (JSON.stringify(kept) !== JSON.stringify(event)) {
      throw new Error(`seq ${event.seq} read two ways: ${JSON.stringify([kept, event])}`);
    }
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** The newest seq any of the servers has applied. */
export async function headOf(targets: string[], token: string): Promise<number> {
  let head = 0;
  for (const target of targets) {
    const res = await fetch(new URL("/api/customers?limit=1", target), {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    head = Math.max(head, Number(res.headers.get("log-seq") ?? 0));
  }
  return head;
}

/**
 * Every event of the feed up to `head`, read from `target` once it has applied `head`, and the
 * first seq it still holds (retention or the JSONL store's compaction may have dropped older ones).
 */
export async function readWholeFeed(target: string, token: string, head: number) {
  const events: FeedEvent[] = [];
  let start = 1;
  for (let after = 0; after < head;) {
    const res = await fetch(new URL(`/api/events?after=${after}&limit=1000`, target), {
      headers: { authorization: `Bearer ${token}`, "min-log-seq": String(head) },
    });
    const body = await res.json();
    if (res.status === 410 && events.length === 0) {
      start = after = body.oldest_seq - 1;
      start++;
      continue;
    }
    if (!res.ok) throw new Error(`feed after ${after}: ${res.status} ${JSON.stringify(body)}`);
    events.push(...body.data);
    if (body.last_seq <= after) throw new Error(`the feed did not move past ${after}`);
    after = body.last_seq;
  }
  return { events, start };
}

/** Each customer of the feed as `target` serves it once it has applied `head` (null: 404). */
export async function finalState(target: string, token: string, head: number, ids: Set<string>) {
  const final = new Map<string, CustomerBody | null>();
  for (const id of ids) {
    const res = await fetch(new URL(`/api/customers/${id}`, target), {
      headers: { authorization: `Bearer ${token}`, "min-log-seq": String(head) },
    });
    const text = await res.text();
    if (res.status === 200) final.set(id, JSON.parse(text));
    else if (res.status === 404) final.set(id, null);
    else throw new Error(`GET ${id}: ${res.status} ${text}`);
  }
  return final;
}
