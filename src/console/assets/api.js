/** Calls the public API with the session's token; errors carry the problem+json the API sent. */

/** An answer other than 2xx (or 304); `problem` is the API's problem+json, or one made up. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
  }
}

/** The API for one session; `onUnauthorized` hears of a 401 (a token expired or revoked). */
export function createApi(session, onUnauthorized) {
  async function call(method, path, { json, headers = {}, contentType } = {}) {
    const sent = { authorization: `Bearer ${session.token}`, accept: "application/json" };
    if (json !== undefined) sent["content-type"] = contentType ?? "application/json";
    let response;
    try {
      response = await fetch(path, {
        method,
        headers: { ...sent, ...headers },
        body: json === undefined ? undefined : JSON.stringify(json),
        cache: "no-store",
        credentials: "omit",
      });
    } catch {
      throw new ApiError(0, {
        title: "Network error",
        detail: "The service cannot be reached. Check that it runs, then try again.",
      });
    }
    const text = await response.text();
    let body = null;
    if (text !== "" && /json/.test(response.headers.get("content-type") ?? "")) {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    if (!response.ok) {
      const problem = body && typeof body === "object"
        ? body
        : { title: response.statusText, detail: `The server answered ${response.status}.` };
      if (response.status === 401) onUnauthorized(problem);
      throw new ApiError(response.status, problem);
    }
    return { status: response.status, headers: response.headers, body };
  }

  return {
    get: (path) => call("GET", path),
    post: (path, json, headers) => call("POST", path, { json, headers }),
    put: (path, json, headers) => call("PUT", path, { json, headers }),
    patch: (path, json, headers) =>
      call("PATCH", path, { json, headers, contentType: "application/merge-patch+json" }),
    delete: (path, headers) => call("DELETE", path, { headers }),
  };
}

/** The version in a strong ETag (`"3"` → 3). */
export function versionOf(response) {
  const match = /^"(\d+)"$/.exec(response.headers.get("etag") ?? "");
  return match ? Number(match[1]) : undefined;
}

/** `If-Match` for a version. */
export function ifMatch(version) {
  return { "if-match": `"${version}"` };
}
