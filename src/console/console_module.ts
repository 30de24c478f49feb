import { createHash } from "node:crypto";
import type { ApiModule, PublicHandler } from "../http/api_module.ts";
import { RouteNotFoundError } from "../http/errors.ts";
import { CONSOLE_ASSETS, CONSOLE_PAGE, type ConsoleFile } from "./console_files.ts";

/**
 * Only the console's own files may load, nothing may frame the page, and no form may navigate:
 * a sign-in form submitted without its script would otherwise put the token in a URL.
 */
export const CONSOLE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; " +
  "img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";

/** The headers of every console file besides its type and ETag. */
const SECURITY_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  // Revalidated on every load (cheap, by ETag), so a new release is picked up at once.
  "cache-control": "no-cache",
};

/** Answers one file, or 304 when the browser holds this version of it. */
function fileHandler(file: ConsoleFile): PublicHandler {
  const body = new TextEncoder().encode(file.text);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
  const headers = { ...SECURITY_HEADERS, "content-type": file.type, etag };
  return (request) => {
    const cached = request.headers.get("if-none-match")?.split(/\s*,\s*/).includes(etag);
    if (cached) return new Response(null, { status: 304, headers });
    return new Response(body, { headers });
  };
}

/** The browser console (contract §12) at `/console`, served without a token. */
export function consoleModule(): ApiModule {
  const page = fileHandler(CONSOLE_PAGE);
  const assets = new Map(
    Object.entries(CONSOLE_ASSETS).map(([name, file]) => [name, fileHandler(file)]),
  );
  const asset: PublicHandler = (request) => {
    const pathname = new URL(request.url).pathname;
    const handler = assets.get(pathname.slice("/console/".length));
    if (handler === undefined) throw new RouteNotFoundError(pathname);
    return handler(request);
  };
  return {
    paths: {},
    scopes: {},
    routes: [],
    publicRoutes: [
      { pathname: "/console", methods: { GET: page } },
      // The page under another name: its links are absolute.
      { pathname: "/console/", methods: { GET: page } },
      { pathname: "/console/:file", methods: { GET: asset } },
    ],
  };
}
