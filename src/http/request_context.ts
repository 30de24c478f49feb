import type { HandlerContext, Principal } from "./api_module.ts";
import type { Params } from "./router.ts";

/** Where a handler's complete answer is noted, for the layers that finish the response. */
export interface Completion {
  /** The handler's answer built with every header (HandlerContext.respond). */
  complete?: Response;
}

/** What a handler gets besides the request; the URL is parsed only when asked for (the list). */
export class RequestContext implements HandlerContext {
  #url: URL | undefined;
  #completion: Completion;
  constructor(
    readonly request: Request,
    readonly params: Params,
    readonly requestId: string,
    readonly principal: Principal,
    readonly headers: Record<string, string>,
    completion: Completion,
  ) {
    this.#completion = completion;
  }

  get url(): URL {
    return this.#url ??= new URL(this.request.url);
  }

  respond(body: BodyInit | null, status: number, own: Record<string, string>): Response {
    const response = new Response(body, { status, headers: { ...this.headers, ...own } });
    this.#completion.complete = response;
    return response;
  }
}
