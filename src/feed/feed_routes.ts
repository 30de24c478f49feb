import { READ_SCOPE } from "../auth/scopes.ts";
import type { ApiModule, Handler } from "../http/api_module.ts";
import type { EventStore, ReplayedEvent, StoredEvent } from "../store/event_store.ts";
import { EventStreams } from "./event_stream.ts";
import { feedHandlers } from "./feed_handlers.ts";
import { FeedIndex } from "./feed_index.ts";
import { FEED_API } from "./feed_openapi.ts";
import { FeedReader } from "./feed_reader.ts";
import { historyHandlers } from "./history_handlers.ts";
import { RECENT_CAPACITY, RecentEvents } from "./recent_events.ts";
import type { StreamTokens } from "./stream_tokens.ts";

/** What the feed module is built from. */
export interface FeedModuleDeps {
  store: EventStore;
  /** Registers a listener called after each durable, applied commit, in seq order. */
  onCommit: (
    listener: (event: StoredEvent | ReplayedEvent, dataJson?: string | null) => void,
  ) => void;
  isLive: (id: string) => boolean;
  tokens: StreamTokens;
  retentionMs: number;
  maxStreams: number;
  /** SSE_HEARTBEAT in ms. */
  heartbeatMs?: number;
  clock?: () => number;
  /** Resolves once the startup replay is done; the index is built after it (default: at once). */
  replayed?: Promise<void>;
  /** Told of each failed read while the index is built (it is tried again). */
  onIndexError?: (error: unknown) => void;
}

/** The feed module and its stop: closes streams and ends long polls (at shutdown). */
export interface FeedModule {
  module: ApiModule;
  index: FeedIndex;
  streams: EventStreams;
  /** The newest events in memory, for other readers of the log (webhook delivery). */
  recent: RecentEvents;
  /** The first seq still served: older events are past EVENT_RETENTION (the feed answers 410). */
  oldestSeq(): number;
  stop(): void;
}

const read = (handler: Handler) => ({ scope: READ_SCOPE, handler });

/** The change feed, its event stream, stream tokens and customer history (contract §8, §9). */
export function feedModule(deps: FeedModuleDeps): FeedModule {
  const index = new FeedIndex(deps.store, deps.replayed, deps.onIndexError);
  // Erased customers leave the index and the cache together, whichever read notices first.
  const recent = new RecentEvents(deps.store, RECENT_CAPACITY, (seq) => index.takeErased(seq));
  deps.onCommit((event, dataJson) => {
    index.add(event);
    // Streams and long polls at the head then read the new events from memory, not the log.
    const replayed = asReplayed(event, dataJson);
    if (replayed !== undefined) recent.add(replayed);
  });
  const reader = new FeedReader(deps.store, index, deps.retentionMs, deps.clock, recent);
  const streams = new EventStreams(deps.store, reader, {
    maxStreams: deps.maxStreams,
    ...(deps.heartbeatMs === undefined ? {} : { heartbeatMs: deps.heartbeatMs }),
  });
  const shutdown = new AbortController();
  const feed = feedHandlers({
    store: deps.store,
    index,
    reader,
    streams,
    tokens: deps.tokens,
    shutdown: shutdown.signal,
  });
  const history = historyHandlers({ store: deps.store, index, reader, isLive: deps.isLive });
  const module: ApiModule = {
    ...FEED_API,
    routes: [
      { pathname: "/api/events", methods: { GET: read(feed.events) } },
      { pathname: "/api/events/stream-tokens", methods: { POST: read(feed.streamToken) } },
      { pathname: "/api/customers/:id/history", methods: { GET: read(history.history) } },
      { pathname: "/api/customers/:id/versions/:n", methods: { GET: read(history.version) } },
    ],
  };
  return {
    module,
    index,
    streams,
    recent,
    oldestSeq: () => reader.oldestSeq(),
    stop: () => {
      shutdown.abort();
      streams.closeAll();
    },
  };
}

/** A committed event as the log hands it over; built field by field, as rest-and-spread is slow. */
function asReplayed(
  event: StoredEvent | ReplayedEvent,
  dataJson: string | null | undefined,
): ReplayedEvent | undefined {
  if ("dataJson" in event) return event;
  if (dataJson === undefined) return undefined;
  const replayed: ReplayedEvent = {
    type: event.type,
    id: event.id,
    version: event.version,
    time: event.time,
    actor: event.actor,
    request_id: event.request_id,
    seq: event.seq,
    dataJson,
  };
  if (event.idempotency_key !== undefined) replayed.idempotency_key = event.idempotency_key;
  if (event.request_hash !== undefined) replayed.request_hash = event.request_hash;
  return replayed;
}
