/** Characters a path may hold for its raw form to equal the WHATWG-normalised pathname. */
const PLAIN_PATH = /^\/[A-Za-z0-9_~\-/]*$/;

/** The pathname of a request URL: a plain path is cut out of the string, cheaper than parsing. */
export function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  const path = query === -1 ? url.slice(start) : url.slice(start, query);
  return PLAIN_PATH.test(path) ? path : new URL(url).pathname;
}
