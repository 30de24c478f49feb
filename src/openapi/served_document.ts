import { JSON_TYPE } from "../http/media_types.ts";
import { OPENAPI_DOCUMENT } from "./openapi.ts";

// Cannot occur in the document: JSON text would escape the NUL characters.
const PLACEHOLDER = "\u0000servers\u0000";

/** The document's JSON text before and after the value of `servers`, which follows `info`. */
function splitAroundServers(document: Readonly<Record<string, unknown>>): [string, string] {
  const { openapi, info, ...rest } = document;
  const text = JSON.stringify({ openapi, info, servers: PLACEHOLDER, ...rest });
  const [before, after] = text.split(JSON.stringify(PLACEHOLDER));
  return [before, after];
}

/**
 * GET /api/openapi.json. The document is serialised once; only its `servers` entry is made per
 * request: `publicUrl` (PUBLIC_URL) when set, else the origin the request was sent to.
 */
export function openApiHandler(publicUrl?: string): (request: Request) => Response {
  const [before, after] = splitAroundServers(OPENAPI_DOCUMENT);
  const text = (url: string, description: string) =>
    before + JSON.stringify([{ url, description }]) + after;
  const fixed = publicUrl === undefined ? undefined : text(publicUrl, "This service (PUBLIC_URL).");
  return (request) => {
    const body = fixed ?? text(originOf(request), "The address this document was fetched from.");
    return new Response(body, { headers: { "content-type": JSON_TYPE } });
  };
}

/** The request's origin; "/" (relative to the document) when it has none, as over a socket. */
function originOf(request: Request): string {
  const origin = new URL(request.url).origin;
  return origin === "null" ? "/" : origin;
}
