/**
 * What concurrent writers were told, for checking afterwards: every acknowledged write with the
 * seq its answer named, and the answers of every race (same email, same If-Match, same key).
 */
import type { ApiResponse } from "./api.ts";

/** A write the server acknowledged with 2xx: `text` is the customer it answered (not for 204). */
export interface AckedWrite {
  op: "create" | "patch" | "delete";
  id: string;
  version: number;
  seq: number;
  text?: string;
  replica: number;
  /** An Idempotency-Key replay: `seq` is what the replica had applied, not the event's own. */
  replayed: boolean;
}

/** What one request of a race got: a status, or "error" when no answer came (a killed replica). */
export interface RaceAnswer {
  status: number | "error";
  type?: string;
  text?: string;
  /** The Log-Seq of a 2xx answer: a create's own event, which a later delete's erasure removes. */
  seq?: number;
}

/** Statuses a write may get under this workload; anything else is a failure of the run. */
const EXPECTED = new Set([200, 201, 204, 404, 409, 412, 503]);

/** The record of one run. */
export class WriteLedger {
  readonly acked: AckedWrite[] = [];
  readonly emailRaces: RaceAnswer[][] = [];
  readonly ifMatchRaces: RaceAnswer[][] = [];
  /** Per Idempotency-Key, every answer in the order it came. */
  readonly keyed = new Map<string, RaceAnswer[]>();
  readonly unexpected: string[] = [];
  /** Answers per replica and status, e.g. "1 503" → 12. */
  readonly counts = new Map<string, number>();

  /** Notes an answer (or a failed request) of `replica`; records it if it acknowledges a write. */
  note(
    op: AckedWrite["op"],
    replica: number,
    res: ApiResponse | undefined,
    id?: string,
  ): RaceAnswer {
    const status = res?.status ?? "error";
    const key = `${replica} ${status}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (res === undefined) return { status };
    const answer: RaceAnswer = { status: res.status, type: res.body?.type, text: res.text };
    if (!EXPECTED.has(res.status)) this.unexpected.push(`${op} → ${res.status} ${res.text}`);
    if (res.status === 503 && !/storage-unavailable$/.test(String(res.body?.type))) {
      this.unexpected.push(`${op} → 503 of type ${res.body?.type}`);
    }
    if (res.status === 503 && res.headers.get("retry-after") === null) {
      this.unexpected.push(`${op} → 503 without Retry-After`);
    }
    if (res.status >= 300) return answer;
    const seq = Number(res.headers.get("log-seq"));
    if (!(seq > 0)) this.unexpected.push(`${op} → ${res.status} without a Log-Seq`);
    answer.seq = seq;
    const version = res.status === 204 ? Number.NaN : res.body.version;
    this.acked.push({
      op,
      id: id ?? res.body.id,
      version,
      seq,
      text: res.status === 204 ? undefined : res.text,
      replica,
      replayed: res.headers.get("idempotent-replayed") === "true",
    });
    return answer;
  }

  /** Answers per status over all replicas, for the log line of the test. */
  summary(): string {
    return [...this.counts].sort().map(([key, n]) => `${key}: ${n}`).join(", ");
  }
}
