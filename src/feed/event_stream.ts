import type { EventStore } from "../store/event_store.ts";
import { TooManyStreamsError } from "./feed_errors.ts";
import type { FeedReader, PageRequest } from "./feed_reader.ts";
import { HeadFanOut, type HeadSubscriber } from "./head_fanout.ts";
import { bookmarkFrame, framesChunk, HEARTBEAT_FRAME } from "./sse_frames.ts";

/** How streams behave; the intervals are injectable so tests can shorten them. */
export interface StreamOptions {
  /** MAX_STREAMS: open streams beyond it answer 503. */
  maxStreams: number;
  /** A heartbeat comment (or a bookmark) at least this often; at most 15 s. */
  heartbeatMs?: number;
  /** Heartbeats in a row a consumer may leave its buffer full before it is closed. */
  stalledBeats?: number;
  /** How long a woken stream waits for more commits before reading (batches the writes). */
  coalesceMs?: number;
}

const encoder = new TextEncoder();

/** Where a stream is: read (or handed by the head reader) up to `position`, sent up to `sent`. */
interface Cursor {
  position: number;
  sent: number;
  atHead?: HeadSubscriber;
}

/** Chunks (pages of at most PAGE events) queued per stream before the log is read again. */
const BUFFER_CHUNKS = 16;
const PAGE = 100;

/** The open SSE streams, each pulled: the log is read only when its consumer has room. */
export class EventStreams {
  #open = new Set<AbortController>();
  #store: EventStore;
  #reader: FeedReader;
  #fanOut: HeadFanOut;
  #options: Required<StreamOptions>;

  constructor(store: EventStore, reader: FeedReader, options: StreamOptions) {
    this.#store = store;
    this.#reader = reader;
    this.#options = { heartbeatMs: 15_000, stalledBeats: 4, coalesceMs: 10, ...options };
    this.#fanOut = new HeadFanOut(store, reader);
  }

  get size(): number {
    return this.#open.size;
  }

  /** Closes every stream (at shutdown); clients reconnect with Last-Event-ID. */
  closeAll(): void {
    this.#fanOut.close();
    for (const stream of this.#open) stream.abort();
  }

  #position(cursor: Cursor): number {
    return cursor.atHead === undefined ? cursor.position : this.#fanOut.positionOf(cursor.atHead);
  }

  /** Subscribes a caught-up stream to the head reader: true once it leaves, false if behind. */
  #atHead(
    request: PageRequest,
    controller: ReadableStreamDefaultController<Uint8Array>,
    stop: AbortSignal,
    cursor: Cursor,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      const leave = () => {
        stop.removeEventListener("abort", closed);
        cursor.position = this.#position(cursor);
        cursor.atHead = undefined;
        resolve(true);
      };
      const closed = () => {
        this.#fanOut.leave(subscriber);
        leave();
      };
      const subscriber: HeadSubscriber = {
        request,
        position: cursor.position,
        deliver: (chunk: Uint8Array) => {
          if (stop.aborted) return false;
          controller.enqueue(chunk);
          cursor.sent = this.#position(cursor);
          if ((controller.desiredSize ?? 0) > 0) return true;
          leave();
          return false;
        },
        release: leave,
      };
      if (!this.#fanOut.join(subscriber)) return resolve(false);
      cursor.atHead = subscriber;
      stop.addEventListener("abort", closed, { once: true });
    });
  }

  /** Opens a stream of frames after `request.after`; throws TooManyStreamsError at the cap. */
  open(request: PageRequest, signal: AbortSignal): ReadableStream<Uint8Array> {
    if (this.#open.size >= this.#options.maxStreams) {
      throw new TooManyStreamsError(this.#options.maxStreams);
    }
    const stop = new AbortController();
    this.#open.add(stop);
    const cursor: Cursor = { position: request.after, sent: request.after };
    let stalled = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const finish = () => {
      clearInterval(timer);
      this.#open.delete(stop);
      if (!stop.signal.aborted) stop.abort();
    };
    signal.addEventListener("abort", () => stop.abort(), { once: true });
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        const close = () => {
          finish();
          try {
            controller.close();
          } catch {
            // Already closed or errored.
          }
        };
        stop.signal.addEventListener("abort", close, { once: true });
        timer = setInterval(() => {
          if ((controller.desiredSize ?? 0) <= 0) {
            if (++stalled >= this.#options.stalledBeats) close();
            return;
          }
          stalled = 0;
          // A bookmark doubles as the heartbeat when filters skipped events since the last frame.
          const position = this.#position(cursor);
          const frame = position > cursor.sent ? bookmarkFrame(position) : HEARTBEAT_FRAME;
          cursor.sent = position;
          controller.enqueue(encoder.encode(frame));
        }, this.#options.heartbeatMs);
      },
      pull: async (controller) => {
        while (!stop.signal.aborted) {
          const page = await this.#reader.read({ ...request, after: cursor.position, limit: PAGE });
          if (stop.signal.aborted) return;
          cursor.position = page.lastSeq;
          const chunk = framesChunk(page.events);
          if (chunk !== undefined) {
            controller.enqueue(chunk);
            cursor.sent = cursor.position;
            return;
          }
          if (page.hasMore) continue;
          // Caught up: the shared head reader hands it every later commit while it keeps up.
          if (await this.#atHead(request, controller, stop.signal, cursor)) return;
          try {
            await this.#store.waitForCommit(cursor.position, stop.signal);
            await new Promise((resolve) => setTimeout(resolve, this.#options.coalesceMs));
          } catch {
            return;
          }
        }
      },
      cancel: finish,
    }, { highWaterMark: BUFFER_CHUNKS });
  }
}
