/**
 * Responses built with every header their request's answer carries (HandlerContext.respond).
 * The layers that would add headers afterwards leave them alone: reading `response.headers`
 * makes Deno drop the native response it prepared when the Response was constructed and
 * serialise the headers again, which costs a GET more than its handler does.
 */
const complete = new WeakSet<Response>();

/** A response whose headers are final: `headers` must already hold every mandatory one. */
export function completeResponse(
  body: BodyInit | null,
  status: number,
  headers: Record<string, string>,
): Response {
  const response = new Response(body, { status, headers });
  complete.add(response);
  return response;
}

/** True for a response built by completeResponse: add nothing to its headers. */
export function isComplete(response: Response): boolean {
  return complete.has(response);
}
