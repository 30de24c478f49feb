import { isUlid } from "../domain/customer.ts";
import { customerText } from "../read_model/customer_text.ts";
import type { CustomerRecord } from "../read_model/projection.ts";
import { CustomerNotFoundError } from "../domain/errors.ts";
import type { CustomerService } from "./customer_service.ts";
import type { Committed, WriteContext } from "./write_context.ts";
import type { HandlerContext } from "../http/api_module.ts";
import { JSON_TYPE } from "../http/media_types.ts";
import { DEFAULT_BODY_TIMEOUT_MS, readJsonBody } from "../http/body.ts";
import { etag, ifNoneMatchHits, parseIfMatch } from "../http/conditional.ts";
import { BadRequestError } from "../http/errors.ts";
import { encodeCursor, parseListQuery } from "./list_query.ts";
import { type CachedPage, PageCache } from "./page_cache.ts";
import { keyOf } from "../search/list_sort.ts";

const JSON_BODY = ["application/json"];
const PATCH_BODY = ["application/merge-patch+json", "application/json"];
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** The customer endpoints of contract §4, bound to a service; the app checks their scopes. */
export function customerHandlers(
  service: CustomerService,
  maxBodyBytes: number,
  bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
) {
  const writeContext = (context: HandlerContext): WriteContext => ({
    actor: context.principal.sub,
    requestId: context.requestId,
  });

  /** What PUT and PATCH read, in order: the customer must exist, then the body, then If-Match. */
  async function readChange(request: Request, context: HandlerContext, accepted: string[]) {
    const id = live(service, context.params.id).id;
    const body = await readJsonBody(request, accepted, maxBodyBytes, bodyTimeoutMs);
    const expected = parseIfMatch(request.headers.get("if-match"));
    return { id, body, expected, write: writeContext(context) };
  }

  const pages = new PageCache();

  return {
    /** A page is built once per change of the read model and query string, then answered again. */
    async list(request: Request, context: HandlerContext): Promise<Response> {
      const url = request.url;
      const at = url.indexOf("?");
      const search = at === -1 ? "" : url.slice(at);
      const changes = service.readModelChanges;
      let page = pages.get(search, changes);
      if (page === undefined) {
        const built = await listPage(service, context.url);
        // The state the page answers: a search may have waited for the indexes or paused.
        context.headers["log-seq"] = String(built.seq);
        page = built.page;
        pages.set(search, changes, page);
      }
      const own: Record<string, string> = page.link === undefined
        ? { "content-type": JSON_TYPE }
        : { "content-type": JSON_TYPE, link: page.link };
      return context.respond(page.body, 200, own);
    },

    async create(request: Request, context: HandlerContext): Promise<Response> {
      const key = request.headers.get("idempotency-key") ?? undefined;
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        throw new BadRequestError("Idempotency-Key must be 1 to 255 printable ASCII characters");
      }
      const body = await readJsonBody(request, JSON_BODY, maxBodyBytes, bodyTimeoutMs);
      const committed = await service.create(body, writeContext(context), key);
      const own = customerHeaders(committed);
      own.location = `/api/customers/${committed.customer.id}`;
      if (committed.replayed) own["idempotent-replayed"] = "true";
      return context.respond(answerText(committed), 201, own);
    },

    read(request: Request, context: HandlerContext): Response {
      const record = live(service, context.params.id);
      if (ifNoneMatchHits(request.headers.get("if-none-match"), record.version)) {
        return context.respond(null, 304, { etag: etag(record.version) });
      }
      return context.respond(record.json, 200, {
        "content-type": JSON_TYPE,
        etag: etag(record.version),
      });
    },

    async replace(request: Request, context: HandlerContext): Promise<Response> {
      const { id, body, expected, write } = await readChange(request, context, JSON_BODY);
      const committed = await service.replace(id, body, expected, write);
      return context.respond(answerText(committed), 200, customerHeaders(committed));
    },

    async patch(request: Request, context: HandlerContext): Promise<Response> {
      const { id, body, expected, write } = await readChange(request, context, PATCH_BODY);
      const committed = await service.patch(id, body, expected, write);
      return context.respond(answerText(committed), 200, customerHeaders(committed));
    },

    async remove(request: Request, context: HandlerContext): Promise<Response> {
      const id = live(service, context.params.id).id;
      const expected = parseIfMatch(request.headers.get("if-match"));
      const { seq } = await service.delete(id, expected, writeContext(context));
      return context.respond(null, 204, { "log-seq": String(seq) });
    },
  };
}

/** The page a list query asks for, as answered: its body and the next page's `Link`. */
async function listPage(service: CustomerService, url: URL) {
  const request = parseListQuery(url.search);
  const { page, seq } = await service.lists.page(request);
  const last = page.texts[page.texts.length - 1];
  const next = page.more ? encodeCursor(keyOf(request.sort, last), request.sort) : null;
  let link: string | undefined;
  if (next !== null) {
    const params = new URLSearchParams(url.searchParams);
    params.set("cursor", next);
    link = `<${url.pathname}?${params}>; rel="next"`;
  }
  const body = `{"data":[${page.texts.join(",")}],"next_cursor":${
    next === null ? "null" : `"${next}"`
  }}`;
  return { page: { body, link } as CachedPage, seq };
}

/** The live customer's record for the path's id; a malformed id is simply not found. */
function live(service: CustomerService, id: string | undefined): CustomerRecord {
  const record = id !== undefined && isUlid(id) ? service.record(id) : undefined;
  if (record === undefined) throw new CustomerNotFoundError(id ?? "");
  return record;
}

/**
 * A written customer's own headers; `Log-Seq` names its event (contract §8). All are set at once
 * (context.respond): setting one on a built Response makes Deno drop its prepared native answer.
 */
function customerHeaders({ customer, seq }: Committed): Record<string, string> {
  return { "content-type": JSON_TYPE, etag: etag(customer.version), "log-seq": String(seq) };
}

/** The answer's body: the text made with the log line, else (nothing written) the durable customer. */
function answerText({ customer, text }: Committed): string {
  return text ?? customerText(customer);
}
