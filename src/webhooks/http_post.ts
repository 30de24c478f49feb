import type { Destination } from "./destination.ts";

/** At most this much of a receiver's answer is read; none of it is kept. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What one POST got: a status code, or an error saying why none came. */
export type PostOutcome = { status: number; error?: undefined } | {
  status?: undefined;
  error: string;
};

/** An open connection to a checked address, kept for the next delivery to the same place. */
export interface OpenConnection {
  conn: Deno.Conn;
  /** address, port, scheme and host it was opened for. */
  key: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const STATUS_LINE = /^HTTP\/1\.[01] ([0-9]{3})/;

/** The identity of a connection: the checked address and what TLS verified. */
export function connectionKey(destination: Destination): string {
  const { address, port, tls, url } = destination;
  return `${tls ? "https" : "http"} ${address} ${port} ${url.hostname}`;
}

/**
 * POSTs `body` over HTTP/1.1 to the destination's checked address: TCP to that IP, then TLS with
 * the URL's host name for SNI and certificate checks, so a DNS answer changed since the check is
 * never used. Reads at most 64 KiB of the answer; follows no redirect. `kept`, when it was opened
 * for the same checked address, is reused; the connection left open (if any) is returned.
 */
export async function postTo(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  kept?: OpenConnection,
  /** Extra trusted CA certificates (PEM), for tests with a receiver of their own. */
  caCerts?: string[],
): Promise<{ outcome: PostOutcome; open?: OpenConnection }> {
  const key = connectionKey(destination);
  let conn: Deno.Conn | undefined = kept?.key === key ? kept.conn : undefined;
  if (kept !== undefined && conn === undefined) close(kept.conn);
  const reused = conn !== undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (conn !== undefined) close(conn);
  }, timeoutMs);
  try {
    if (conn === undefined) {
      const tcp = await Deno.connect({ hostname: destination.address, port: destination.port });
      conn = tcp;
      if (timedOut) throw new Error("timeout");
      if (destination.tls) {
        conn = await Deno.startTls(tcp, {
          hostname: destination.url.hostname.replace(/^\[|\]$/g, ""),
          caCerts,
        });
      }
    }
    const bytes = encoder.encode(body);
    const lines = [
      `POST ${destination.url.pathname}${destination.url.search} HTTP/1.1`,
      `host: ${destination.url.host}`,
      "content-type: application/json",
      `content-length: ${bytes.length}`,
      "user-agent: customer-api-webhooks",
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    const head = encoder.encode(lines.join("\r\n") + "\r\n\r\n");
    const request = new Uint8Array(head.length + bytes.length);
    request.set(head);
    request.set(bytes, head.length);
    await writeAll(conn, request);
    const answer = await readAnswer(conn);
    clearTimeout(timer);
    if (answer.reusable) return { outcome: { status: answer.status }, open: { conn, key } };
    close(conn);
    return { outcome: { status: answer.status } };
  } catch (error) {
    clearTimeout(timer);
    if (conn !== undefined) close(conn);
    if (timedOut) return { outcome: { error: `no answer within ${timeoutMs} ms` } };
    // A kept connection the receiver closed meanwhile: try once more on a new one.
    if (reused) return postTo(destination, headers, body, timeoutMs, undefined, caCerts);
    return { outcome: { error: error instanceof Error ? error.message : String(error) } };
  }
}

function close(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/**
 * Reads the status and, when the answer says its length and fits in MAX_ANSWER_BYTES, the rest of
 * it, so the connection can carry the next delivery; otherwise the connection is not reused.
 */
async function readAnswer(conn: Deno.Conn): Promise<{ status: number; reusable: boolean }> {
  const buffer = new Uint8Array(MAX_ANSWER_BYTES);
  let length = 0;
  let status: number | undefined;
  let headEnd = -1;
  while (length < buffer.length) {
    const n = await conn.read(buffer.subarray(length));
    if (n === null) break;
    length += n;
    const text = decoder.decode(buffer.subarray(0, length));
    if (status === undefined && text.includes("\r\n")) {
      const match = STATUS_LINE.exec(text);
      if (match === null) throw new Error("the answer is not HTTP/1.1");
      status = Number(match[1]);
    }
    headEnd = text.indexOf("\r\n\r\n");
    if (headEnd === -1) continue;
    const head = text.slice(0, headEnd).toLowerCase();
    if (/\r\nconnection: *close/.test(head) || /^http\/1\.0/.test(head)) {
      return { status: status!, reusable: false };
    }
    // 204 and 304 answers have no body (RFC 9110 §6.4.1); others must declare their length.
    const declared = status === 204 || status === 304
      ? "0"
      : /\r\ncontent-length: *([0-9]+)/.exec(head)?.[1];
    if (declared === undefined) return { status: status!, reusable: false };
    const total = headEnd + 4 + Number(declared);
    if (total > buffer.length) return { status: status!, reusable: false };
    while (length < total) {
      const more = await conn.read(buffer.subarray(length));
      if (more === null) return { status: status!, reusable: false };
      length += more;
    }
    // Anything beyond the declared length is not HTTP we understand: do not reuse.
    return { status: status!, reusable: length === total };
  }
  if (status !== undefined) return { status, reusable: false };
  throw new Error("the connection closed before a status line");
}
