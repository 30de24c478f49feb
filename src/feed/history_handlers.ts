import { CustomerNotFoundError } from "../domain/errors.ts";
import type { HandlerContext } from "../http/api_module.ts";
import { etag } from "../http/conditional.ts";
import { BadRequestError } from "../http/errors.ts";
import { JSON_TYPE } from "../http/media_types.ts";
import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { VersionExpiredError } from "./feed_errors.ts";
import type { FeedIndex } from "./feed_index.ts";
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT } from "./feed_query.ts";
import type { FeedReader } from "./feed_reader.ts";
import { publicEventJson } from "./public_event.ts";

/** What the history endpoints are built from. */
export interface HistoryDeps {
  store: EventStore;
  index: FeedIndex;
  reader: FeedReader;
  /** True when the customer is live (a deleted customer's history is 404). */
  isLive: (id: string) => boolean;
}

/** `GET /api/customers/{id}/history` and `GET /api/customers/{id}/versions/{n}` (contract §9). */
export function historyHandlers(deps: HistoryDeps) {
  /** The live customer's event seqs, through the index (never a scan of the log). */
  async function seqsOf(id: string | undefined): Promise<readonly number[]> {
    if (id === undefined || !deps.isLive(id)) throw new CustomerNotFoundError(id ?? "");
    await deps.index.ready;
    return deps.index.seqsOf(id);
  }

  async function eventAt(seq: number): Promise<ReplayedEvent | undefined> {
    const [event] = await deps.store.readFrom(seq - 1, 1);
    return event?.seq === seq ? event : undefined;
  }

  return {
    async history(_request: Request, context: HandlerContext): Promise<Response> {
      const { after, limit } = parseHistoryQuery(context.url.search);
      const seqs = await seqsOf(context.params.id);
      const oldest = deps.reader.oldestSeq();
      const events: string[] = [];
      let hasMore = false;
      // Version n is the customer's n-th event: its seq is seqs[n - 1].
      for (let i = after; i < seqs.length; i++) {
        if (seqs[i] < oldest) continue;
        if (events.length === limit) {
          hasMore = true;
          break;
        }
        const event = await eventAt(seqs[i]);
        if (event !== undefined) events.push(publicEventJson(event));
      }
      const body = `{"data":[${events.join(",")}],"has_more":${hasMore}}`;
      return new Response(body, { headers: { "content-type": JSON_TYPE } });
    },

    async version(_request: Request, context: HandlerContext): Promise<Response> {
      const id = context.params.id!;
      const text = context.params.n ?? "";
      const seqs = await seqsOf(id);
      const n = /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : 0;
      if (n < 1 || n > seqs.length) throw new CustomerNotFoundError(id);
      if (seqs[n - 1] < deps.reader.oldestSeq()) throw new VersionExpiredError(id, n);
      const event = await eventAt(seqs[n - 1]);
      if (event === undefined || event.dataJson === null) throw new CustomerNotFoundError(id);
      return new Response(event.dataJson, {
        headers: { "content-type": JSON_TYPE, etag: etag(n) },
      });
    },
  };
}

function parseHistoryQuery(search: string): { after: number; limit: number } {
  const params = new URLSearchParams(search);
  for (const name of params.keys()) {
    if (name !== "after" && name !== "limit") {
      throw new BadRequestError(`Unknown query parameter "${name}"; use after or limit`);
    }
  }
  const number = (name: string, min: number, max: number, fallback: number) => {
    const text = params.get(name);
    if (text === null) return fallback;
    if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
      throw new BadRequestError(`${name} "${text}" must be an integer from ${min} to ${max}`);
    }
    return Number(text);
  };
  return {
    after: number("after", 0, 999_999_999, 0),
    limit: number("limit", 1, FEED_MAX_LIMIT, FEED_DEFAULT_LIMIT),
  };
}
