import type { Destination } from "./destination.ts";
import { DeadlineSweeper } from "../lib/deadline_sweeper.ts";
import { readAnswer } from "./http_answer.ts";

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
  /** Reused for every request and answer on this connection (one at a time). */
  buffer: Uint8Array;
}

const encoder = new TextEncoder();
const deadlines = new DeadlineSweeper(20);

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
  body: string | Uint8Array,
  timeoutMs: number,
  kept?: OpenConnection,
  /** Extra trusted CA certificates (PEM), for tests with a receiver of their own. */
  caCerts?: string[],
  /** Cuts the attempt off: the connection is closed and no answer awaited. */
  signal?: AbortSignal,
): Promise<{ outcome: PostOutcome; open?: OpenConnection }> {
  if (signal?.aborted) {
    if (kept !== undefined) close(kept.conn);
    return { outcome: { error: "cut off" } };
  }
  const key = connectionKey(destination);
  let open: OpenConnection | undefined = kept?.key === key ? kept : undefined;
  if (kept !== undefined && open === undefined) close(kept.conn);
  const reused = open !== undefined;
  const deadline = deadlines.add(timeoutMs, () => open !== undefined && close(open.conn));
  const cut = () => open !== undefined && close(open.conn);
  signal?.addEventListener("abort", cut, { once: true });
  try {
    if (open === undefined) {
      const tcp = await Deno.connect({ hostname: destination.address, port: destination.port });
      open = { conn: tcp, key, buffer: new Uint8Array(MAX_ANSWER_BYTES) };
      if (deadline.expired) throw new Error("timeout");
      if (signal?.aborted) throw new Error("cut off");
      if (destination.tls) {
        open.conn = await Deno.startTls(tcp, {
          hostname: destination.url.hostname.replace(/^\[|\]$/g, ""),
          caCerts,
        });
      }
    }
    const bytes = typeof body === "string" ? encoder.encode(body) : body;
    let head =
      `POST ${destination.url.pathname}${destination.url.search} HTTP/1.1\r\nhost: ${destination.url.host}\r\ncontent-type: application/json\r\ncontent-length: ${bytes.length}\r\n` +
      "user-agent: customer-api-webhooks\r\n";
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    head += "\r\n";
    await writeAll(open.conn, request(open, head, bytes));
    const answer = await readAnswer(open.conn, open.buffer);
    deadlines.remove(deadline);
    if (signal?.aborted) throw new Error("cut off");
    if (answer.reusable) return { outcome: { status: answer.status }, open };
    close(open.conn);
    return { outcome: { status: answer.status } };
  } catch (error) {
    deadlines.remove(deadline);
    if (open !== undefined) close(open.conn);
    if (deadline.expired) return { outcome: { error: `no answer within ${timeoutMs} ms` } };
    if (signal?.aborted) return { outcome: { error: "cut off" } };
    // A kept connection the receiver closed meanwhile: try once more on a new one.
    if (reused) return postTo(destination, headers, body, timeoutMs, undefined, caCerts, signal);
    return { outcome: { error: error instanceof Error ? error.message : String(error) } };
  } finally {
    signal?.removeEventListener("abort", cut);
  }
}

/** The request's head and body in one buffer (one write): the connection's own when they fit. */
function request(open: OpenConnection, head: string, body: Uint8Array): Uint8Array {
  let buffer = open.buffer;
  // ASCII headers: at most 3 bytes per UTF-16 unit in case a URL path carries other text.
  if (head.length * 3 + body.length > buffer.length) {
    buffer = new Uint8Array(head.length * 3 + body.length);
  }
  const { written } = encoder.encodeInto(head, buffer);
  buffer.set(body, written);
  return buffer.subarray(0, written + body.length);
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
