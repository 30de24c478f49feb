const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The client's X-Request-Id when it is sane (≤ 128 of [A-Za-z0-9._-]), else a new one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && SANE_ID.test(given) ? given : crypto.randomUUID();
}
