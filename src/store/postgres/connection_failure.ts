/**
 * Tells a database that cannot be reached (refused, dropped, timed out, shutting down) from a
 * statement the database refused: background work waits out the first and reports the second.
 */

/** SQLSTATE classes of a lost or refused connection: 08 connection exception, 57 operator intervention. */
const CONNECTION_CLASSES = new Set(["08", "57"]);

/**
 * True when `error` (or the cause it wraps) is not an answer of the database to a statement: a
 * driver or socket error (no SQLSTATE), or a SQLSTATE of a class above.
 */
export function isConnectionFailure(error: unknown): boolean {
  let inner = error;
  while (inner instanceof Error && inner.cause !== undefined) inner = inner.cause;
  const code = (inner as { code?: unknown } | undefined)?.code;
  const sqlState = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  return sqlState === undefined || CONNECTION_CLASSES.has(sqlState.slice(0, 2));
}
