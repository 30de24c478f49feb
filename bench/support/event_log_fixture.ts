/**
 * Writes a realistic event log straight in the server's on-disk format, fast: a deterministic
 * mix of creates, updates and deletes with distinct emails and a gap-free sequence.
 */
import { encodeEvent } from "../../src/store/jsonl/event_codec.ts";
import type { StoredEvent } from "../../src/store/event_store.ts";
import { LOG_DIR, segmentName } from "../../src/store/jsonl/data_dir_layout.ts";
import { fakeCustomer, fakeHash, fakeUlid, fakeUuid } from "./fake_customers.ts";
import { seededRandom } from "./prng.ts";

/** What was written. */
export interface EventLogFixture {
  /** The first (with the default options, the only) segment file. */
  path: string;
  /** Every segment file, oldest first. */
  paths: string[];
  events: number;
  created: number;
  updated: number;
  deleted: number;
  /** Customers live after the last event. */
  live: number;
  bytes: number;
}

/** How the log is cut and generated. */
export interface EventLogOptions {
  /** Start a new segment once one reaches this size, as the server does; default: one segment. */
  segmentMaxBytes?: number;
  /** The same seed gives the same events. */
  seed?: number;
  /** The customers' names (fake_customers.ts): 80 plain ones (default) or varied ones. */
  names?: "plain" | "varied";
}

const FLUSH_BYTES = 8 << 20;
/** The log spans the 30 days before it is written, so most idempotency keys have expired. */
const SPAN_MS = 30 * 86_400_000;
const ACTORS = ["svc-signup", "svc-billing", "crm-sync", "admin-ops"];

/** Writes `events` events (80 % creates, 15 % updates, 5 % deletes) to DATA_DIR/log. */
export async function writeEventLog(
  dataDir: string,
  events: number,
  options: EventLogOptions = {},
): Promise<EventLogFixture> {
  const random = seededRandom(options.seed ?? 1);
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / events;
  const capacity = events + 1;
  // Per customer number: id, creation time, version; `live` holds the numbers of live customers.
  const ids: string[] = [];
  const createdAt = new Float64Array(capacity);
  const versions = new Int32Array(capacity);
  const live = new Int32Array(capacity);
  const position = new Int32Array(capacity);
  let liveCount = 0;
  const counts = { created: 0, updated: 0, deleted: 0 };

  await Deno.mkdir(`${dataDir}/${LOG_DIR}`, { recursive: true });
  const log = new SegmentWriter(`${dataDir}/${LOG_DIR}`, options.segmentMaxBytes ?? Infinity);
  try {
    for (let seq = 1; seq <= events; seq++) {
      const ms = Math.floor(start + seq * step);
      const time = new Date(ms).toISOString();
      const meta = { seq, time, actor: ACTORS[seq % ACTORS.length], request_id: fakeUuid(random) };
      const dice = liveCount === 0 ? 0 : random();
      let event: StoredEvent;
      if (dice < 0.8) {
        const n = ids.length;
        ids.push(fakeUlid(ms, random));
        createdAt[n] = ms;
        versions[n] = 1;
        position[n] = liveCount;
        live[liveCount++] = n;
        const data = fakeCustomer(n, ids[n], time, time, 1, random, options.names);
        const keyed = random() < 0.1
          ? { idempotency_key: `k-${n}`, request_hash: fakeHash(random) }
          : {};
        event = { type: "customer.created", id: ids[n], version: 1, data, ...meta, ...keyed };
        counts.created++;
      } else {
        const n = live[Math.floor(random() * liveCount)];
        const version = ++versions[n];
        if (dice < 0.95) {
          const created = new Date(createdAt[n]).toISOString();
          const data = fakeCustomer(n, ids[n], created, time, version, random, options.names);
          event = { type: "customer.updated", id: ids[n], version, data, ...meta };
          counts.updated++;
        } else {
          const last = live[--liveCount];
          live[position[n]] = last;
          position[last] = position[n];
          event = { type: "customer.deleted", id: ids[n], version, data: null, ...meta };
          counts.deleted++;
        }
      }
      await log.append(seq, encodeEvent(event));
    }
  } finally {
    await log.close();
  }
  const { paths, bytes } = log;
  return { path: paths[0], paths, events, ...counts, live: liveCount, bytes };
}

/** Buffers lines into big writes and rolls to a new segment as the server's store does. */
class SegmentWriter {
  readonly paths: string[] = [];
  bytes = 0;
  #dir: string;
  #maxBytes: number;
  #file: Deno.FsFile | undefined;
  #segmentBytes = 0;
  #buffer = new Uint8Array(FLUSH_BYTES + (1 << 20));
  #filled = 0;

  constructor(dir: string, maxBytes: number) {
    this.#dir = dir;
    this.#maxBytes = maxBytes;
  }

  /** Appends the line of event `seq`, starting a segment at `seq` when none is open. */
  async append(seq: number, line: Uint8Array): Promise<void> {
    if (this.#file === undefined) {
      const path = `${this.#dir}/${segmentName(seq)}`;
      this.#file = await Deno.open(path, { write: true, create: true, truncate: true });
      this.paths.push(path);
      this.#segmentBytes = 0;
    }
    if (this.#filled + line.length > this.#buffer.length) await this.#flush();
    this.#buffer.set(line, this.#filled);
    this.#filled += line.length;
    this.#segmentBytes += line.length;
    this.bytes += line.length;
    if (this.#filled >= FLUSH_BYTES) await this.#flush();
    // The store rolls after a write that brings the segment to its limit.
    if (this.#segmentBytes >= this.#maxBytes) await this.close();
  }

  /** Writes what is buffered and closes the open segment. */
  async close(): Promise<void> {
    await this.#flush();
    this.#file?.close();
    this.#file = undefined;
  }

  async #flush(): Promise<void> {
    const bytes = this.#buffer.subarray(0, this.#filled);
    for (let at = 0; at < bytes.length;) at += await this.#file!.write(bytes.subarray(at));
    this.#filled = 0;
  }
}
