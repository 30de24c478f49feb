import { JSON_TYPE } from "../http/media_types.ts";

// Cannot occur in the document: JSON text would escape the NUL characters.
const PLACEHOLDER = "\u0000servers\u0000";

/** The document's JSON text before and after the value of `servers`, which follows `info`. */
function splitAroundServers(document: Readonly<Record<string, unknown>>): [string, string] {
  const { openapi, info, ...rest } = document;
  const text = JSON.stringify({ openapi, info, servers: PLACEHOLDER, ...rest });
  const [before, after] = text.split(JSON.stringify(PLACEHOLDER));
  return [before, after];
}

/** GET /api/openapi.json: encoded once, only its `servers` entry made per request. */
export function openApiHandler(
  document: Readonly<Record<string, unknown>>,
  publicUrl?: string,
): (request: Request) => Response {
  const encoder = new TextEncoder();
  const [before, after] = splitAroundServers(document).map((text) => encoder.encode(text));
  // Only the encoded halves are copied per request, not the whole document encoded again.
  const bytes = (url: string, description: string) => {
    const servers = encoder.encode(JSON.stringify([{ url, description }]));
    const body = new Uint8Array(before.length + servers.length + after.length);
    body.set(before);
    body.set(servers, before.length);
    body.set(after, before.length + servers.length);
    return body;
  };
  const fixed = publicUrl === undefined
    ? undefined
    : bytes(publicUrl, "This service (PUBLIC_URL).");
  return (request) => {
    const body = fixed ?? bytes(originOf(request), "The address this document was fetched from.");
    return new Response(body, { headers: { "content-type": JSON_TYPE } });
  };
}

/** The request's origin; "/" (relative to the document) when it has none, as over a socket. */
function originOf(request: Request): string {
  const origin = new URL(request.url).origin;
  return origin === "null" ? "/" : origin;
}
