import type { HandlerContext } from "../http/api_module.ts";
import { JSON_TYPE } from "../http/media_types.ts";
import type { EventStore } from "../store/event_store.ts";
import type { EventStreams } from "./event_stream.ts";
import type { FeedIndex } from "./feed_index.ts";
import { parseFeedQuery, parseLastEventId } from "./feed_query.ts";
import type { FeedPage, FeedReader, PageRequest } from "./feed_reader.ts";
import { publicEventJson } from "./public_event.ts";
import type { StreamTokens } from "./stream_tokens.ts";

/** What the feed endpoints are built from. */
export interface FeedHandlerDeps {
  store: EventStore;
  index: FeedIndex;
  reader: FeedReader;
  streams: EventStreams;
  tokens: StreamTokens;
  /** Aborted at shutdown: long polls answer at once. */
  shutdown: AbortSignal;
}

/** `GET /api/events` (JSON page or event stream) and `POST /api/events/stream-tokens`. */
export function feedHandlers(deps: FeedHandlerDeps) {
  return {
    async events(request: Request, context: HandlerContext): Promise<Response> {
      const stream = (request.headers.get("accept") ?? "").includes("text/event-stream");
      const query = parseFeedQuery(context.url.search, stream);
      await deps.index.ready;
      // Last-Event-ID wins over after: a reconnecting EventSource resumes where it stopped.
      const resume = stream ? parseLastEventId(request.headers.get("last-event-id")) : undefined;
      const page: PageRequest = { ...query, after: deps.reader.start(resume ?? query.after) };
      if (stream) {
        const body = deps.streams.open(page, request.signal);
        return new Response(body, {
          headers: {
            "content-type": "text/event-stream",
            "cache-control": "no-store",
            "log-seq": String(page.after),
          },
        });
      }
      const result = await longPoll(deps, page, query.wait * 1000, request.signal);
      const data = result.events.map(publicEventJson).join(",");
      const body = `{"data":[${data}],"last_seq":${result.lastSeq},"has_more":${result.hasMore}}`;
      return new Response(body, {
        headers: { "content-type": JSON_TYPE, "log-seq": String(result.lastSeq) },
      });
    },

    streamToken(_request: Request, context: HandlerContext): Response {
      const { token, expiresAt } = deps.tokens.mint(context.principal.sub);
      const expiresIn = Math.round((expiresAt - Date.now()) / 1000);
      return new Response(
        JSON.stringify({ token, expires_in: expiresIn, expires_at: new Date(expiresAt) }),
        { status: 201, headers: { "content-type": JSON_TYPE, "cache-control": "no-store" } },
      );
    },
  };
}

/** Reads a page; an empty one waits up to `waitMs` for a matching commit (never before durable). */
async function longPoll(
  deps: FeedHandlerDeps,
  request: PageRequest,
  waitMs: number,
  client: AbortSignal,
): Promise<FeedPage> {
  let page = await deps.reader.read(request);
  if (page.events.length > 0 || page.hasMore || waitMs === 0) return page;
  const signal = AbortSignal.any([client, deps.shutdown, AbortSignal.timeout(waitMs)]);
  while (page.events.length === 0 && !page.hasMore) {
    try {
      await deps.store.waitForCommit(page.lastSeq, signal);
    } catch {
      return page;
    }
    page = await deps.reader.read({ ...request, after: page.lastSeq });
  }
  return page;
}
